/**
 * FedNow as a rail of transfers and payouts, end to end: credits only, 24×7×365 on the simulated
 * clock (a Sunday and Christmas Day here), the network maximum from the reference, the magic
 * rejections (AC03 routing 790000051, AC04 and AM02 accounts), through REST and GraphQL, delivered
 * to a real Standard Webhooks receiver. The ledger sums to zero after every step.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import rails from '../../../reference/rails_and_lifecycle.json' with { type: 'json' };
import { RAIL_LIMIT_MINOR } from '../../../src/modules/transfers/transfers.rails.ts';
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';
import { headerMap, Receiver } from '../../support/receiver.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

const { post, get, usd, merchantAt, eventTypes } = clockedMerchants(() => t);

/** Sunday 2031-12-07, 03:00 ET: no ACH window anywhere near. */
const SUNDAY_0300 = '2031-12-07T08:00:00.000Z';
const ROUTING = '021000021';

const ledgerBalanced = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

function fednow(m: TestMerchant, fields: Json & { account?: string; routing?: string } = {}) {
  const { account = '000123456789', routing = ROUTING, ...rest } = fields;
  return post(m, '/v1/transfers', {
    rail: 'fednow',
    direction: 'credit',
    amount: '100.00',
    currency: 'USD',
    counterparty: { name: 'Supplier', routing_number: routing, account_number: account },
    ...rest,
  });
}

describe('FedNow', () => {
  it('its limit is the reference’s sourced network maximum', () => {
    expect(rails.fednow.per_transaction_limit_usd).toBe(10_000_000);
    expect(RAIL_LIMIT_MINOR.fednow).toBe(1_000_000_000n);
  });

  it('REST: completes 2 s after sending on a Sunday; rejections AC03, AC04, AM02 release the hold; debits and over-limit refused', async () => {
    const m = await merchantAt(SUNDAY_0300);
    const hook = await post(m, '/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['transfer.completed', 'transfer.rejected', 'payout.paid'],
    });
    expect(hook.status).toBe(200);
    receiver.received.length = 0;

    const sent = await fednow(m);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({
      rail: 'fednow',
      state: 'pending',
      sec_code: null,
      expected_submission_at: null,
      expected_settlement_at: '2031-12-07T08:00:02.000Z',
    });
    expect(await usd(m)).toEqual({ available: 900, pending: 0, reserved: 100 });
    await ledgerBalanced(m);

    const rejected: Record<string, string> = {};
    for (const [code, fields] of [
      ['AC03', { routing: '790000051' }],
      ['AC04', { account: '000444444440' }],
      ['AM02', { account: '000555555553' }],
    ] as const) {
      const res = await fednow(m, { ...fields, amount: '10.00' });
      expect(res.status, res.text).toBe(200);
      rejected[code] = String(res.body.id);
    }
    await ledgerBalanced(m);

    for (const [body, code, param] of [
      [{ direction: 'debit' }, 'rail_direction_unsupported', 'direction'],
      [{ amount: '10000000.01' }, 'amount_exceeds_rail_limit', 'amount'],
      [{ sec_code: 'CCD' }, 'parameter_invalid', 'sec_code'],
    ] as const) {
      const res = await fednow(m, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
    // The network maximum itself is accepted (then held: the balance is short, 422).
    const atLimit = await fednow(m, { amount: '10000000.00' });
    expect(atLimit.status).toBe(422);
    expect(atLimit.body.error).toMatchObject({ code: 'insufficient_balance' });
    expect(await usd(m)).toEqual({ available: 870, pending: 0, reserved: 130 });
    await ledgerBalanced(m);

    await post(m, '/v1/clock/advance', { seconds: 5 });
    expect(await get(m, `/v1/transfers/${sent.body.id}`)).toMatchObject({
      body: { state: 'completed', settled_at: '2031-12-07T08:00:02.000Z' },
    });
    for (const [code, id] of Object.entries(rejected)) {
      const res = await get(m, `/v1/transfers/${id}`);
      expect(res.body.state, code).toBe('rejected');
      expect(String(res.body.failure_reason)).toMatch(new RegExp(`^${code}: `));
    }
    expect(await usd(m)).toEqual({ available: 900, pending: 0, reserved: 0 });
    await ledgerBalanced(m);
    expect(await eventTypes(m, String(sent.body.id))).toEqual(['transfer.created', 'transfer.completed']);

    // Instant rails have no ACH steps.
    const submit = await post(m, `/v1/simulate/transfers/${sent.body.id}/submit`);
    expect(submit.status).toBe(409);
    expect(String((submit.body.error as Json).message)).toContain('FedNow');
    // Nor notifications of change, which are ACH's.
    const noc = await post(m, `/v1/simulate/transfers/${sent.body.id}/notification_of_change`, {
      code: 'C01',
    });
    expect(noc.status).toBe(409);
    expect(String((noc.body.error as Json).message)).toContain('FedNow transfer is completed');
    expect(String((noc.body.error as Json).message)).toContain('ACH entries only');
    await ledgerBalanced(m);

    // A payout by FedNow: paid within seconds, on Christmas Day.
    await post(m, '/v1/clock/advance', { to: '2031-12-25T15:00:00.000Z' });
    const payout = await post(m, '/v1/payouts', {
      amount: '200.00',
      currency: 'USD',
      method: 'fednow',
      destination: { name: 'Our account', routing_number: ROUTING, account_number: '000123456789' },
    });
    expect(payout.status, payout.text).toBe(200);
    expect(payout.body).toMatchObject({ method: 'fednow', state: 'pending', in_transit_at: null });
    await ledgerBalanced(m);
    await post(m, '/v1/clock/advance', { seconds: 3 });
    expect((await get(m, `/v1/payouts/${payout.body.id}`)).body).toMatchObject({
      state: 'paid',
      paid_at: '2031-12-25T15:00:02.000Z',
    });
    expect(await usd(m)).toEqual({ available: 700, pending: 0, reserved: 0 });
    await ledgerBalanced(m);
    expect((await get(m, '/v1/transfers?rail=fednow&state=rejected')).body.data).toHaveLength(3);

    const types = receiver.received.map(
      (r) => (new Webhook(String(hook.body.secret)).verify(r.body, headerMap(r.headers)) as Json).type,
    );
    expect(types.sort()).toEqual(
      [
        'payout.paid',
        'transfer.completed',
        'transfer.rejected',
        'transfer.rejected',
        'transfer.rejected',
      ].sort(),
    );
    receiver.assertConforming();
  });

  it('GraphQL: createTransfer and createPayout on fednow; a debit is refused', async () => {
    const m = await merchantAt(SUNDAY_0300);
    const hook = await post(m, '/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['transfer.created', 'transfer.rejected', 'payout.created', 'payout.paid'],
    });
    expect(hook.status).toBe(200);
    receiver.received.length = 0;
    await ledgerBalanced(m);
    const created = await t.gql<Json>(
      `mutation { createTransfer(rail: fednow, direction: credit, amount: "55.00", currency: USD,
        counterparty: { name: "X", routingNumber: "${ROUTING}", accountNumber: "000444444440" }) {
        __typename ... on MutationCreateTransferSuccess { data { id rail state } }
      } }`,
      {},
      { key: m.secretKey },
    );
    const transfer = (created.data.createTransfer as { data: Json }).data;
    expect(transfer).toMatchObject({ rail: 'fednow', state: 'pending' });
    expect(await usd(m)).toEqual({ available: 945, pending: 0, reserved: 55 });
    await ledgerBalanced(m);
    const debit = await t.gql<Json>(
      `mutation { createTransfer(rail: fednow, direction: debit, amount: "5.00", currency: USD,
        counterparty: { name: "X", routingNumber: "${ROUTING}", accountNumber: "000123456789" }) {
        __typename ... on SandbankError { code param }
      } }`,
      {},
      { key: m.secretKey },
    );
    expect(debit.data.createTransfer).toEqual({
      __typename: 'SandbankError',
      code: 'rail_direction_unsupported',
      param: 'direction',
    });
    await ledgerBalanced(m);
    const payout = await t.gql<Json>(
      `mutation { createPayout(method: fednow, amount: "20.00", currency: USD,
        destination: { name: "Us", routingNumber: "${ROUTING}", accountNumber: "000123456789" }) {
        __typename ... on MutationCreatePayoutSuccess { data { id method state } }
      } }`,
      {},
      { key: m.secretKey },
    );
    expect((payout.data.createPayout as { data: Json }).data).toMatchObject({
      method: 'fednow',
      state: 'pending',
    });
    expect(await usd(m)).toEqual({ available: 925, pending: 0, reserved: 75 });
    await ledgerBalanced(m);
    await post(m, '/v1/clock/advance', { seconds: 5 });
    const read = await t.gql<Json>(
      `{ transfer(id: "${transfer.id}") { state failureReason } transfers(rail: fednow) { edges { node { id } } } }`,
      {},
      { key: m.secretKey },
    );
    expect(read.data.transfer).toEqual({ state: 'rejected', failureReason: 'AC04: Closed account number' });
    const payoutId = (payout.data.createPayout as { data: Json }).data.id;
    const paid = await t.gql<Json>(`{ payout(id: "${payoutId}") { state } }`, {}, { key: m.secretKey });
    expect(paid.data.payout).toEqual({ state: 'paid' });
    expect(await usd(m)).toEqual({ available: 980, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    // The deliveries: signed with the endpoint's secret, each matching the document.
    await post(m, '/v1/clock/advance', { seconds: 1 });
    const delivered = receiver.received.map((r) => {
      const event = new Webhook(String(hook.body.secret)).verify(r.body, headerMap(r.headers)) as Json;
      return [event.type, (event.data as { object: Json }).object.id];
    });
    expect(delivered.sort()).toEqual(
      [
        ['transfer.created', transfer.id],
        ['transfer.rejected', transfer.id],
        ['payout.created', payoutId],
        ['payout.paid', payoutId],
      ].sort(),
    );
    receiver.assertConforming();
  });
});
