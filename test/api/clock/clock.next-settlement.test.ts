import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forget, saveClock } from '../../../src/modules/clock/clock.service.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

/**
 * "Next settlement" from the API: POST /v1/clock/advance with `next: "settlement"` and GraphQL's
 * advanceClock(next: settlement) move the clock to when every ACH entry in flight has settled, as
 * the dashboard's button does, and answer the clock as any advance does.
 */

type Json = Record<string, unknown>;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const account = (number: string) => ({
  name: 'Acme Supplies',
  routing_number: '021000021',
  account_number: number,
  account_type: 'checking',
});

/** A frozen merchant at Wednesday 2031-12-03 10:00 ET with a funded USD balance. */
async function wednesdayMorning(): Promise<
  TestMerchant & { post: (path: string, body?: unknown) => Promise<{ status: number; body: Json }> }
> {
  const m = await t.merchant();
  const post = (path: string, body?: unknown) => t.rest<Json>('POST', path, { key: m.secretKey, body });
  await post('/v1/clock/freeze');
  expect((await post('/v1/clock/advance', { to: '2031-12-03T15:00:00Z' })).status).toBe(200);
  await post('/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
  return { ...m, post };
}

describe('advance to the next settlement over REST', () => {
  it('settles a standard and a Same-Day ACH entry in one call, answering the clock and what ran', async () => {
    const m = await wednesdayMorning();
    const sameDay = await m.post('/v1/transfers', {
      amount: '10.00',
      currency: 'USD',
      rail: 'same_day_ach',
      direction: 'credit',
      counterparty: account('000123456789'),
    });
    const standard = await m.post('/v1/transfers', {
      amount: '12.00',
      currency: 'USD',
      rail: 'ach',
      direction: 'debit',
      counterparty: account('000123456789'),
    });
    expect([sameDay.status, standard.status]).toEqual([200, 200]);
    const moved = await m.post('/v1/clock/advance', { next: 'settlement' });
    expect(moved.status).toBe(200);
    // Standard ACH in the 10:30 ET window settles Thursday 08:30 ET (13:30Z).
    expect(moved.body).toMatchObject({ object: 'clock', now: '2031-12-04T13:30:00.000Z', frozen: true });
    const ranOn = (moved.body.ran as Json[]).map((job) => job.object_id);
    expect(ranOn).toContain(sameDay.body.id);
    expect(ranOn).toContain(standard.body.id);
    for (const id of [sameDay.body.id, standard.body.id]) {
      const transfer = await t.rest<Json>('GET', `/v1/transfers/${id}`, { key: m.secretKey });
      expect(transfer.body.state).toBe('settled');
    }
  });

  it('with nothing in flight goes to the next Same-Day ACH settlement, as the dashboard does', async () => {
    const m = await wednesdayMorning();
    const moved = await m.post('/v1/clock/advance', { next: 'settlement' });
    expect(moved.status).toBe(200);
    // 10:00 ET → the 10:30 window's settlement, 13:00 ET (18:00Z).
    expect(moved.body).toMatchObject({ now: '2031-12-03T18:00:00.000Z', ran: [] });
  });

  it('refuses an unknown mark, and more than one of seconds, to and next', async () => {
    const m = await wednesdayMorning();
    const unknown = await m.post('/v1/clock/advance', { next: 'payday' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_invalid', param: 'next' });
    const both = await m.post('/v1/clock/advance', { next: 'settlement', seconds: 60 });
    expect(both.status).toBe(400);
    expect((both.body.error as Json).code).toBe('parameter_invalid');
    const clock = await t.rest<Json>('GET', '/v1/clock', { key: m.secretKey });
    expect(clock.body.now).toBe('2031-12-03T15:00:00.000Z');
  });

  it('the document describes next as a third choice of one', async () => {
    const doc = await t.rest<Json>('GET', '/v1/openapi.json');
    const body = (doc.body.paths as Json)['/clock/advance'] as { post: { requestBody: Json } };
    const schema = JSON.stringify(body.post.requestBody);
    expect(schema).toContain('"next"');
    expect(schema).toContain('{"required":["next"]}');
  });
});

describe('advance to the next settlement over GraphQL', () => {
  const ADVANCE = (args: string) => `mutation { advanceClock(${args}) {
    __typename
    ... on MutationAdvanceClockSuccess { data { now frozen ran { objectId state } } }
    ... on SandbankError { code param }
  } }`;

  it('advanceClock(next: settlement) settles what is in flight', async () => {
    const m = await wednesdayMorning();
    const payout = await m.post('/v1/payouts', {
      amount: '13.00',
      currency: 'USD',
      method: 'ach',
      destination: account('000123456789'),
    });
    expect(payout.status).toBe(200);
    const res = await t.gql<Json>(ADVANCE('next: settlement'), {}, { key: m.secretKey });
    expect(res.errors).toBeUndefined();
    const answer = res.data.advanceClock as { __typename: string; data: Json };
    expect(answer.__typename).toBe('MutationAdvanceClockSuccess');
    expect(answer.data.now).toBe('2031-12-04T13:30:00.000Z');
    expect((answer.data.ran as Json[]).map((job) => job.objectId)).toContain(payout.body.id);
    const after = await t.rest<Json>('GET', `/v1/payouts/${payout.body.id}`, { key: m.secretKey });
    expect(after.body.state).toBe('paid');
  });

  it('with nothing in flight goes to the next Same-Day settlement; next with seconds is refused', async () => {
    const m = await wednesdayMorning();
    const both = await t.gql<Json>(ADVANCE('next: settlement, seconds: 60'), {}, { key: m.secretKey });
    expect(both.data.advanceClock).toMatchObject({ __typename: 'SandbankError', code: 'parameter_invalid' });
    const res = await t.gql<Json>(ADVANCE('next: settlement'), {}, { key: m.secretKey });
    expect(res.data.advanceClock).toMatchObject({ data: { now: '2031-12-03T18:00:00.000Z', ran: [] } });
  });
});

describe('the clock ceiling', () => {
  it('moves up to 9000-01-01 (the last steps ten years at a time) and no further: a 400 naming the ceiling, never a 500', async () => {
    const m = await t.merchant();
    const post = (path: string, body?: unknown) => t.rest<Json>('POST', path, { key: m.secretKey, body });
    expect((await post('/v1/clock/freeze')).status).toBe(200);
    // Seven centuries of ten-year advances (about 700 requests, long on a busy machine) are not
    // what is under test: the frozen clock is set to 8975 directly, then moves in ten-year steps.
    await t.database.db.transaction((tx) =>
      saveClock(tx, m.id, { offsetMs: 0, frozenAt: new Date('8975-06-01T00:00:00Z') }, new Date()),
    );
    forget(t.database.db, m.id);
    expect((await t.get(m, '/v1/clock')).body.now).toBe('8975-06-01T00:00:00.000Z');
    let refused: { status: number; body: Json } | undefined;
    for (let step = 0; step < 10 && !refused; step++) {
      const moved = await post('/v1/clock/advance', { seconds: 10 * 365 * 24 * 3600 });
      if (moved.status !== 200) refused = moved;
    }
    expect(refused?.status).toBe(400);
    expect(refused?.body.error).toMatchObject({ code: 'parameter_invalid', param: 'seconds' });
    expect(String((refused?.body.error as Json | undefined)?.message)).toContain(
      'stops at 9000-01-01T00:00:00.000Z',
    );
    const exactly = await post('/v1/clock/advance', { to: '9000-01-01T00:00:00Z' });
    expect(exactly.status, JSON.stringify(exactly.body)).toBe(200);
    expect(exactly.body.now).toBe('9000-01-01T00:00:00.000Z');
    expect((await post('/v1/clock/advance', { seconds: 1 })).status).toBe(400);
    // The sandbox still works there.
    const collected = await post('/v1/collect', { amount: 5, currency: 'USD' });
    expect(collected.status, JSON.stringify(collected.body)).toBe(200);
  });
});
