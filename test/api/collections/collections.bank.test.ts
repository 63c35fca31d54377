/**
 * A checkout paid by US bank account is a standard ACH debit of the payer's account: the
 * collection is `processing` until the debit settles (`succeeded`) or comes back (`failed`, with
 * the return code), driven by the merchant's simulated clock. Instants written out by hand:
 * 2031-12-03 is a Wednesday in EST (UTC−5). Paid at 10:00 ET, the debit goes in the 10:30 ET
 * window (15:30Z), settles Thursday 08:30 ET (2031-12-04T13:30Z); a magic account's return
 * arrives Friday 13:00 ET (2031-12-05T18:00Z).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, openTestDatabase, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  // On Postgres, 8 connections: concurrent payments of one collection really race.
  t = await createTestApp({ database: await openTestDatabase({ connections: 8 }) });
});
afterAll(async () => {
  await t.close();
});

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const WEDNESDAY_1000 = '2031-12-03T15:00:00.000Z';
const SETTLES = '2031-12-04T13:30:00.000Z';
const RETURNS = '2031-12-05T18:00:00.000Z';

/** A new collection of 120.00 paid by the bank account `account`; returns the pay response. */
async function paidByBank(m: TestMerchant, reference: string, account: string) {
  const created = await post(m, '/v1/collect', { amount: 120, currency: 'USD', reference });
  expect(created.status).toBe(200);
  const paid = await post(m, `/v1/simulate/collections/${reference}/pay`, {
    method: 'bank_account',
    bank_account: { name: 'Ada Lovelace', routing_number: '110000000', account_number: account },
  });
  expect(paid.status).toBe(200);
  return paid.body as Json & { id: string; payment: Json & { id: string } };
}

/** The rail's due work that ran while the clock moved to `to` (the collection's own expiry job also runs, as a no-op). */
const railWorkUntil = async (m: TestMerchant, to: string) =>
  (await advanceTo(m, to)).filter((job) => job.startsWith('transfer.'));

const collectionEvents = async (m: TestMerchant, id: string) =>
  (await eventTypes(m, id)).filter((type) => type.startsWith('collection.'));

describe('a checkout paid by bank account', () => {
  it('paid six times at once, it makes one debit; the others are told it is no longer payable', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    expect(
      (await post(m, '/v1/collect', { amount: 120, currency: 'USD', reference: 'bank-race' })).status,
    ).toBe(200);
    const tries = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(m, '/v1/simulate/collections/bank-race/pay', {
          method: 'bank_account',
          bank_account: { name: 'Ada Lovelace', routing_number: '110000000', account_number: '000123456789' },
        }),
      ),
    );
    expect(tries.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of tries.filter((r) => r.status !== 200)) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: { code: 'collection_not_payable' } });
    }
    const debits = (await get(m, '/v1/transfers?limit=100')).body.data as Json[];
    expect(debits.filter((d) => d.collection !== null)).toHaveLength(1);
  });

  it('is processing until its ACH debit settles, then succeeded, with the funds available', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const paid = await paidByBank(m, 'bank-ok', '000123456789');
    expect(paid).toMatchObject({
      state: 'processing',
      failure_code: null,
      payment: {
        object: 'transfer',
        rail: 'ach',
        direction: 'debit',
        state: 'pending',
        sec_code: 'WEB',
        amount: 120,
        counterparty: { name: 'Ada Lovelace', routing_number: '110000000', account_number: '••••6789' },
        collection: paid.id,
        reference: 'bank-ok',
        expected_submission_at: '2031-12-03T15:30:00.000Z',
        expected_settlement_at: SETTLES,
      },
    });
    const debit = paid.payment.id;
    expect(debit).toMatch(/^tr_/);
    // The debit is a transfer like any other: listed, stepped by the clock.
    expect(((await get(m, '/v1/transfers')).body.data as Json[]).map((d) => d.id)).toEqual([debit]);

    await advanceTo(m, '2031-12-03T15:30:00.000Z');
    expect((await get(m, '/v1/collections/bank-ok')).body.state).toBe('processing');
    expect(await usd(m)).toEqual({ available: 0, pending: 120, reserved: 0 });
    await advanceTo(m, '2031-12-04T13:29:59.999Z');
    expect((await get(m, '/v1/collections/bank-ok')).body.state).toBe('processing');

    expect(await railWorkUntil(m, SETTLES)).toEqual([`transfer.settle@${SETTLES}`]);
    const settled = (await get(m, '/v1/collections/bank-ok')).body;
    expect(settled).toMatchObject({ state: 'succeeded', failure_code: null });
    expect(settled.payments).toEqual([expect.objectContaining({ id: debit, state: 'settled' })]);
    expect(settled.payment_attempts).toEqual([]);
    expect(await usd(m)).toEqual({ available: 120, pending: 0, reserved: 0 });
    expect(await collectionEvents(m, paid.id)).toEqual([
      'collection.created',
      'collection.processing',
      'collection.succeeded',
    ]);
    // Nothing comes back from an ordinary account.
    expect(await railWorkUntil(m, '2031-12-31T00:00:00.000Z')).toEqual([]);
    expect((await get(m, '/v1/collections/bank-ok')).body.state).toBe('succeeded');
  });

  it('from 000222222227 it settles, then the R01 return fails it and takes the money back', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const paid = await paidByBank(m, 'bank-r01', '000222222227');
    await advanceTo(m, SETTLES);
    expect((await get(m, '/v1/collections/bank-r01')).body.state).toBe('succeeded');
    expect(await usd(m)).toEqual({ available: 120, pending: 0, reserved: 0 });

    expect(await railWorkUntil(m, RETURNS)).toEqual([`transfer.return@${RETURNS}`]);
    const failed = (await get(m, '/v1/collections/bank-r01')).body;
    expect(failed).toMatchObject({
      state: 'failed',
      failure_code: 'R01',
      failure_message: 'The bank returned the debit: R01 Insufficient Funds.',
    });
    expect(failed.payments).toEqual([
      expect.objectContaining({ id: paid.payment.id, state: 'returned', return_code: 'R01' }),
    ]);
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
    expect(await collectionEvents(m, paid.id)).toEqual([
      'collection.created',
      'collection.processing',
      'collection.succeeded',
      'collection.failed',
    ]);
    // The collection.failed event carries why.
    const events = (await get(m, `/v1/events?object_id=${paid.id}&type=collection.failed`)).body
      .data as Json[];
    expect(events).toEqual([
      expect.objectContaining({
        data: { object: expect.objectContaining({ state: 'failed', failure_code: 'R01' }) },
      }),
    ]);
  });

  it('a return before settlement fails it straight from processing', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const paid = await paidByBank(m, 'bank-early', '000123456789');
    await advanceTo(m, '2031-12-03T15:30:00.000Z');
    const returned = await post(m, `/v1/simulate/transfers/${paid.payment.id}/return`, { code: 'R03' });
    expect(returned.body).toMatchObject({ state: 'returned', return_code: 'R03' });
    expect((await get(m, '/v1/collections/bank-early')).body).toMatchObject({
      state: 'failed',
      failure_code: 'R03',
    });
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
    expect(await collectionEvents(m, paid.id)).toEqual([
      'collection.created',
      'collection.processing',
      'collection.failed',
    ]);
    // Its settlement, due later, finds nothing to do and the collection stays failed.
    await advanceTo(m, SETTLES);
    expect((await get(m, '/v1/collections/bank-early')).body.state).toBe('failed');
  });

  it('its debit moves with the collection: no cancel on its own, and a processing collection takes no second payment', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    const paid = await paidByBank(m, 'bank-lock', '000123456789');
    const cancel = await post(m, `/v1/transfers/${paid.payment.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect((await get(m, `/v1/transfers/${paid.payment.id}`)).body.state).toBe('pending');
    const again = await post(m, '/v1/simulate/collections/bank-lock/pay', {
      method: 'bank_account',
      bank_account: { routing_number: '110000000', account_number: '000123456789' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'collection_not_payable' } });
    expect((await get(m, '/v1/transfers')).body.data).toHaveLength(1);
    // The simulate steps drive the collection too.
    await post(m, `/v1/simulate/transfers/${paid.payment.id}/submit`);
    await post(m, `/v1/simulate/transfers/${paid.payment.id}/settle`);
    expect((await get(m, '/v1/collections/bank-lock')).body.state).toBe('succeeded');
  });

  it('over GraphQL: the payment is a Transfer linked to the collection', async () => {
    const m = await merchantAt(WEDNESDAY_1000, '0');
    await post(m, '/v1/collect', { amount: 75.5, currency: 'USD', reference: 'bank-gql' });
    const res = await t.gql<Json>(
      `mutation {
        simulateCollectionPayment(reference: "bank-gql",
          bankAccount: { routingNumber: "110000000", accountNumber: "000111111116" }) {
          __typename
          ... on MutationSimulateCollectionPaymentSuccess {
            data { transfer { id state direction collection secCode } paymentAttempt { id }
                   collection { state failureCode transfers { id } } }
          }
        }
      }`,
      {},
      { key: m.secretKey },
    );
    expect(res.errors).toBeUndefined();
    const data = (res.data.simulateCollectionPayment as { data: Json }).data as {
      transfer: Json;
      collection: Json;
    };
    expect(data).toMatchObject({
      transfer: { state: 'pending', direction: 'debit', secCode: 'WEB' },
      paymentAttempt: null,
      collection: { state: 'processing', failureCode: null, transfers: [{ id: data.transfer.id }] },
    });
    await advanceTo(m, RETURNS);
    const after = await t.gql<Json>(
      `{ collection(reference: "bank-gql") { state failureCode timeline { state } } }`,
      {},
      { key: m.secretKey },
    );
    expect(after.data.collection).toEqual({
      state: 'failed',
      failureCode: 'R03',
      timeline: [{ state: 'created' }, { state: 'processing' }, { state: 'succeeded' }, { state: 'failed' }],
    });
  });
});
