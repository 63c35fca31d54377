/**
 * A debit returned unauthorized with R05, R07, R10 or R11 carries the receiver's Written Statement
 * of Unauthorized Debit (Nacha lists its contents: the receiver's name, the account, who debited it,
 * the date the entry posted, the reason, the date signed, that it is true and that the signer may act
 * on the account); other returns carry none. The merchant may ask for a copy within one year of the
 * return; the receiving bank has 10 banking days to send it. Over REST, GraphQL, the dashboard and
 * a webhook's event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const { post, get, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const SETTLED = '2031-12-02T14:00:00.000Z'; // Tuesday 09:00 EST
const RETURNED = '2031-12-10T17:00:00.000Z'; // Wednesday 12:00 EST, inside R10's 60 days

async function settledDebit(m: TestMerchant, secCode: string): Promise<string> {
  const created = await post(m, '/v1/transfers', {
    rail: 'ach',
    direction: 'debit',
    sec_code: secCode,
    amount: '42.00',
    currency: 'USD',
    counterparty: { name: 'Dana Receiver', routing_number: '021000021', account_number: '000123456789' },
  });
  expect(created.status).toBe(200);
  const id = String(created.body.id);
  expect((await post(m, `/v1/simulate/transfers/${id}/submit`)).status).toBe(200);
  expect((await post(m, `/v1/simulate/transfers/${id}/settle`)).body).toMatchObject({ state: 'settled' });
  return id;
}

describe('written statements of unauthorized debit', () => {
  it('an R10 return carries one; a copy is sent on request, once, within a year; R01 carries none', async () => {
    const m = await merchantAt(SETTLED);
    const unauthorized = await settledDebit(m, 'WEB');
    const unfunded = await settledDebit(m, 'WEB');
    await advanceTo(m, RETURNED);
    const returned = await post(m, `/v1/simulate/transfers/${unauthorized}/return`, { code: 'R10' });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect(returned.body.wsud).toEqual({
      receiver_name: 'Dana Receiver',
      account_number_last4: '6789',
      debited_by: m.name,
      entry_posted_on: '2031-12-02',
      reason_code: 'R10',
      reason: expect.stringContaining('did not authorize'),
      signed_on: '2031-12-10',
      statements: [
        expect.stringContaining('did not authorize'),
        expect.stringContaining('true and correct'),
        expect.stringContaining('authorized to act on the account'),
      ],
      // One year after the return date: 2032-12-10 23:59:59 EST.
      copy_request_by: '2032-12-11T04:59:59.000Z',
      copy_requested_at: null,
      copy_provide_by: null,
      copy_provided_at: null,
    });
    const r01 = await post(m, `/v1/simulate/transfers/${unfunded}/return`, { code: 'R01', untimely: true });
    expect(r01.body).toMatchObject({ state: 'returned', wsud: null });
    const none = await post(m, `/v1/transfers/${unfunded}/wsud_copy`);
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect(String((none.body.error as Json).message)).toContain('R01');

    // Asked for in March: sent at once; the rule's 10 banking days end Tuesday 2032-03-16.
    await advanceTo(m, '2032-03-02T15:00:00.000Z');
    const copy = await post(m, `/v1/transfers/${unauthorized}/wsud_copy`);
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    expect(copy.body.wsud).toMatchObject({
      copy_requested_at: '2032-03-02T15:00:00.000Z',
      copy_provided_at: '2032-03-02T15:00:00.000Z',
      copy_provide_by: '2032-03-17T03:59:59.000Z', // 23:59:59 EDT (DST began 03-14)
    });
    expect((await eventTypes(m, unauthorized)).at(-1)).toBe('transfer.wsud_copy_provided');
    const again = await post(m, `/v1/transfers/${unauthorized}/wsud_copy`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'invalid_state' } });
  });

  it('a year after the return the copy can no longer be asked for (409 with the deadline)', async () => {
    const m = await merchantAt(SETTLED);
    const id = await settledDebit(m, 'CCD');
    await advanceTo(m, RETURNED);
    const returned = await post(m, `/v1/simulate/transfers/${id}/return`, { code: 'R05' });
    expect(returned.body.wsud).toMatchObject({
      reason_code: 'R05',
      copy_request_by: '2032-12-11T04:59:59.000Z',
    });
    await advanceTo(m, '2032-12-11T05:00:00.000Z');
    const late = await post(m, `/v1/transfers/${id}/wsud_copy`);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({
      error: { code: 'time_frame_passed', deadline: '2032-12-11T05:00:00.000Z' },
    });
    expect((await get(m, `/v1/transfers/${id}`)).body.wsud).toMatchObject({ copy_requested_at: null });
  });

  it('GraphQL answers it and asks for the copy; the dashboard shows it and offers the request', async () => {
    const m = await merchantAt(SETTLED);
    const id = await settledDebit(m, 'PPD');
    await advanceTo(m, RETURNED);
    expect((await post(m, `/v1/simulate/transfers/${id}/return`, { code: 'R07' })).status).toBe(200);
    const gql = <T = Json>(query: string) => t.gql<T>(query, {}, { key: m.secretKey });
    const read = await gql<{ transfer: Json }>(
      `{ transfer(id: "${id}") { ... on Transfer { wsud { reasonCode receiverName signedOn copyRequestBy copyProvidedAt } } } }`,
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.transfer).toEqual({
      wsud: {
        reasonCode: 'R07',
        receiverName: 'Dana Receiver',
        signedOn: '2031-12-10',
        copyRequestBy: '2032-12-11T04:59:59.000Z',
        copyProvidedAt: null,
      },
    });

    const browser = await signedIn(() => t, m);
    let page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('Written statement of unauthorized debit');
    expect(page.html).toContain('data-testid="action-wsud_copy"');
    expect((await browser.post(`/dashboard/transactions/${id}/actions/wsud_copy`, {})).status).toBe(303);
    page = await browser.get(`/dashboard/transactions/${id}`);
    expect(page.html).toContain('Copy sent');
    expect(page.html).not.toContain('data-testid="action-wsud_copy"');

    const again = await gql<{ requestTransferWsudCopy: Json }>(
      `mutation { requestTransferWsudCopy(id: "${id}") { __typename ... on SandbankError { code } } }`,
    );
    expect(again.data.requestTransferWsudCopy).toMatchObject({ code: 'invalid_state' });
  });
});
