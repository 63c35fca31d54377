/**
 * Account verification of saved counterparties, with expected values from Nacha's rules: micro-
 * entries are credits under 1.00 each with an offsetting debit of no more than their sum, settling
 * together (Micro-Entry Rule, 2022); after a prenote, live entries may start on the third banking
 * day following its settlement date (rule 2.6.3, since 2014); a WEB debit needs a validated account
 * (WEB Debit Account Validation Rule, 2021). 2031-12-01 is a Monday.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const { post, get, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

async function counterparty(m: TestMerchant, account = '000123456789'): Promise<string> {
  const res = await post(m, '/v1/counterparties', {
    name: 'Verified Co',
    routing_number: '021000021',
    account_number: account,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.verification_status).toBe('unverified');
  return String(res.body.id);
}

const entry = (counterpartyId: string, over: Json = {}) => ({
  rail: 'ach',
  direction: 'debit',
  amount: '10.00',
  currency: 'USD',
  counterparty: counterpartyId,
  ...over,
});

/** The error of a refused request, its status checked. */
async function refusedWith(res: Promise<{ status: number; body: Json }>, status: number): Promise<Json> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return (answer.body as { error: Json }).error;
}

describe('micro-deposits', () => {
  it('two credits under 1.00 arrive with the Same-Day window; the right amounts verify, wrong ones use attempts', async () => {
    const m = await merchantAt('2031-12-01T14:00:00Z'); // Monday 09:00 ET
    const id = await counterparty(m);
    const sent = await post(m, `/v1/counterparties/${id}/microdeposits`);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    // Window 1 (cut-off 10:30 ET) settles at 13:00 ET.
    expect(sent.body).toMatchObject({
      verification_status: 'verification_pending',
      verification_method: 'microdeposits',
      verification_available_at: '2031-12-01T18:00:00.000Z',
      verification_attempts_remaining: 3,
    });
    // Pending: it may be paid, not debited.
    const code = (await refusedWith(post(m, '/v1/transfers', entry(id)), 409)).code;
    expect(code).toBe('counterparty_verification_pending');
    expect((await post(m, '/v1/transfers', entry(id, { direction: 'credit' }))).status).toBe(200);
    expect(
      (
        await refusedWith(
          post(m, `/v1/counterparties/${id}/microdeposits/confirm`, { amounts: ['0.32', '0.45'] }),
          409,
        )
      ).code,
    ).toBe('invalid_state');
    await advanceTo(m, '2031-12-01T18:00:00Z');
    const wrong = await refusedWith(
      post(m, `/v1/counterparties/${id}/microdeposits/confirm`, { amounts: ['0.45', '0.33'] }),
      400,
    );
    expect(wrong).toMatchObject({ code: 'microdeposit_amounts_mismatch', attempts_remaining: 2 });
    expect((await get(m, `/v1/counterparties/${id}`)).body.verification_attempts_remaining).toBe(2);
    const right = await post(m, `/v1/counterparties/${id}/microdeposits/confirm`, {
      amounts: ['0.45', 0.32],
    });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(right.body).toMatchObject({
      verification_status: 'verified',
      verified_at: '2031-12-01T18:00:00.000Z',
    });
    expect(await eventTypes(m, id)).toEqual(['counterparty.verification_pending', 'counterparty.verified']);
    expect((await post(m, '/v1/transfers', entry(id, { sec_code: 'WEB' }))).status).toBe(200);
    expect((await refusedWith(post(m, `/v1/counterparties/${id}/microdeposits`), 409)).code).toBe(
      'invalid_state',
    );
    const gql = await t.gql<{ counterparty: Json }>(
      'query ($id: ID!) { counterparty(id: $id) { verificationStatus verificationMethod verificationAttemptsRemaining } }',
      { id },
      { key: m.secretKey },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.counterparty).toEqual({
      verificationStatus: 'verified',
      verificationMethod: 'microdeposits',
      verificationAttemptsRemaining: 2,
    });
  });

  it('three wrong confirmations fail it; a failed counterparty is refused on every rail until verified again', async () => {
    const m = await merchantAt('2031-12-01T14:00:00Z');
    const id = await counterparty(m);
    await post(m, `/v1/counterparties/${id}/microdeposits`);
    await advanceTo(m, '2031-12-01T18:00:00Z');
    for (const left of [2, 1, 0]) {
      const error = await refusedWith(
        post(m, `/v1/counterparties/${id}/microdeposits/confirm`, { amounts: ['0.01', '0.02'] }),
        400,
      );
      expect(error.attempts_remaining).toBe(left);
    }
    expect((await get(m, `/v1/counterparties/${id}`)).body).toMatchObject({
      verification_status: 'verification_failed',
      verification_failure_code: 'attempts_exhausted',
    });
    for (const rail of ['ach', 'rtp', 'wire'])
      expect(
        (await refusedWith(post(m, '/v1/transfers', entry(id, { rail, direction: 'credit' })), 409)).code,
      ).toBe('counterparty_verification_failed');
    expect((await post(m, `/v1/counterparties/${id}/microdeposits`)).body.verification_status).toBe(
      'verification_pending',
    );
  });

  it('an account whose bank returns them (000111111116: R03) fails when they settle', async () => {
    const m = await merchantAt('2031-12-01T14:00:00Z');
    const id = await counterparty(m, '000111111116');
    await post(m, `/v1/counterparties/${id}/microdeposits`);
    await advanceTo(m, '2031-12-01T18:00:01Z');
    expect((await get(m, `/v1/counterparties/${id}`)).body).toMatchObject({
      verification_status: 'verification_failed',
      verification_failure_code: 'R03',
    });
    expect(await eventTypes(m, id)).toEqual([
      'counterparty.verification_pending',
      'counterparty.verification_failed',
    ]);
  });
});

describe('prenotes', () => {
  it('live ACH entries wait until the third banking day after the prenote settles; other rails do not', async () => {
    const m = await merchantAt('2031-12-01T15:00:00Z'); // Monday 10:00 ET: window 1, settling Tuesday 08:30 ET
    const id = await counterparty(m);
    const sent = await post(m, `/v1/counterparties/${id}/prenote`);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    // Settled Tuesday 2 December: banking days after it are Wed 3, Thu 4, Fri 5.
    expect(sent.body).toMatchObject({
      verification_status: 'verification_pending',
      verification_method: 'prenote',
      verification_available_at: '2031-12-05T05:00:00.000Z',
    });
    await advanceTo(m, '2031-12-05T04:59:59Z');
    const early = await refusedWith(post(m, '/v1/transfers', entry(id, { direction: 'credit' })), 409);
    expect(early).toMatchObject({
      code: 'counterparty_verification_pending',
      deadline: '2031-12-05T05:00:00.000Z',
    });
    expect((await post(m, '/v1/transfers', entry(id, { rail: 'rtp', direction: 'credit' }))).status).toBe(
      200,
    );
    await advanceTo(m, '2031-12-05T05:00:00Z');
    expect((await get(m, `/v1/counterparties/${id}`)).body.verification_status).toBe('verified');
    expect((await post(m, '/v1/transfers', entry(id))).status).toBe(200);
  });

  it('a WEB debit needs a verified account', async () => {
    const m = await merchantAt('2031-12-01T15:00:00Z');
    const id = await counterparty(m);
    const error = await refusedWith(post(m, '/v1/transfers', entry(id, { sec_code: 'WEB' })), 409);
    expect(error.code).toBe('counterparty_verification_pending');
    expect(String(error.message)).toContain('WEB');
    expect((await post(m, '/v1/transfers', entry(id, { sec_code: 'PPD' }))).status).toBe(200);
  });
});
