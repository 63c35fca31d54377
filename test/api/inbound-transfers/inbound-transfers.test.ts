/**
 * Inbound transfers end to end: an outside originator's ACH credits and debits, Same-Day ACH, RTP
 * and FedNow credits, through REST and GraphQL, delivered to a real Standard Webhooks receiver, on
 * the merchant's simulated clock. The instants are written out by hand: December 2031 is EST
 * (UTC−5); 2031-12-05 is a Friday; 2031-12-25 a Thursday (Christmas, a Fed holiday). The first
 * FedACH window closes 10:30 ET and settles 13:00 ET; standard ACH settles the next banking day at
 * 08:30 ET. The ledger sums to zero after every step.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const FRIDAY_1700 = '2031-12-05T22:00:00.000Z';
const ORIGINATOR = { name: 'Acme Payroll', routing_number: '021000021', account_number: '000987654321' };

const ledgerBalanced = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

function inbound(m: TestMerchant, fields: Json) {
  return post(m, '/v1/simulate/inbound_transfers', {
    amount: '250.00',
    currency: 'USD',
    originator: ORIGINATOR,
    ...fields,
  });
}

async function gql(m: TestMerchant, query: string, variables: Json = {}): Promise<Json> {
  const res = await t.gql<Json>(query, variables, { key: m.secretKey });
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data;
}

describe('inbound transfers over REST', () => {
  it('ACH credits and debits across a weekend, instant credits, returns by code, direction and deadline', async () => {
    const m = await merchantAt(FRIDAY_1700);
    const hook = await post(m, '/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['inbound_transfer.created', 'inbound_transfer.settled', 'inbound_transfer.returned'],
    });
    expect(hook.status).toBe(200);
    await ledgerBalanced(m);

    // Friday 17:00 ET is after the last window: the entries go in Monday's overnight deposit (02:15 ET).
    const credit = await inbound(m, { rail: 'ach', direction: 'credit', reference: 'payroll-1' });
    expect(credit.status, credit.text).toBe(200);
    expect(credit.body).toMatchObject({
      object: 'inbound_transfer',
      rail: 'ach',
      direction: 'credit',
      state: 'pending',
      amount: 250,
      sec_code: 'CCD',
      originator: { name: 'Acme Payroll', routing_number: '021000021', account_number: '••••4321' },
      expected_arrival_at: '2031-12-08T07:15:00.000Z',
      expected_settlement_at: '2031-12-08T13:30:00.000Z',
      return_deadline: null,
      reference: 'payroll-1',
    });
    expect(String(credit.body.id)).toMatch(/^itr_/);
    expect(await usd(m)).toEqual({ available: 1000, pending: 250, reserved: 0 });
    await ledgerBalanced(m);

    const debit = await inbound(m, { rail: 'ach', direction: 'debit', amount: '300.00', sec_code: 'PPD' });
    expect(debit.status, debit.text).toBe(200);
    expect(debit.body).toMatchObject({ state: 'pending', sec_code: 'PPD' });
    expect(await usd(m)).toEqual({ available: 1000, pending: 250, reserved: 0 });
    await ledgerBalanced(m);

    // FedNow on a Friday evening: available at once.
    const instant = await inbound(m, { rail: 'fednow', direction: 'credit', amount: '100.00' });
    expect(instant.body).toMatchObject({
      rail: 'fednow',
      state: 'completed',
      completed_at: FRIDAY_1700,
      sec_code: null,
      expected_settlement_at: null,
    });
    expect(await usd(m)).toEqual({ available: 1100, pending: 250, reserved: 0 });
    await ledgerBalanced(m);

    // Refused, nothing written: instant debits, sec_code on instant rails, over a rail's limit, bad accounts.
    for (const [body, status, code, param] of [
      [{ rail: 'rtp', direction: 'debit' }, 400, 'rail_direction_unsupported', 'direction'],
      [{ rail: 'fednow', direction: 'credit', sec_code: 'PPD' }, 400, 'parameter_invalid', 'sec_code'],
      [
        { rail: 'same_day_ach', direction: 'credit', amount: '1000000.01' },
        400,
        'amount_exceeds_rail_limit',
        'amount',
      ],
      [
        { rail: 'fednow', direction: 'credit', amount: '10000000.01' },
        400,
        'amount_exceeds_rail_limit',
        'amount',
      ],
      [
        { rail: 'ach', direction: 'credit', originator: { ...ORIGINATOR, routing_number: '123456789' } },
        400,
        'invalid_routing_number',
        'originator.routing_number',
      ],
      [{ rail: 'ach', direction: 'credit', currency: 'EUR' }, 400, 'currency_unsupported', 'currency'],
    ] as const) {
      const res = await inbound(m, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    expect((await get(m, '/v1/inbound_transfers')).body.data).toHaveLength(3);
    await ledgerBalanced(m);

    // Not settled yet: a return is a wrong state; an instant credit is never returned.
    const early = await post(m, `/v1/inbound_transfers/${debit.body.id}/return`, { code: 'R10' });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'invalid_state' });
    const instantReturn = await post(m, `/v1/inbound_transfers/${instant.body.id}/return`, { code: 'R23' });
    expect(instantReturn.status).toBe(409);
    expect(await usd(m)).toEqual({ available: 1100, pending: 250, reserved: 0 });
    await ledgerBalanced(m);

    // The weekend passes; Monday's overnight deposit carries them; Monday 08:30 ET they settle.
    const ran = await advanceTo(m, '2031-12-08T13:30:00.000Z');
    expect(ran.filter((job) => job.startsWith('inbound_transfer.settle'))).toEqual([
      'inbound_transfer.settle@2031-12-08T13:30:00.000Z',
      'inbound_transfer.settle@2031-12-08T13:30:00.000Z',
    ]);
    const settledDebit = await get(m, `/v1/inbound_transfers/${debit.body.id}`);
    expect(settledDebit.body).toMatchObject({
      state: 'settled',
      settled_at: '2031-12-08T13:30:00.000Z',
      // 2 banking days after Monday: the end of Wednesday ET.
      return_deadline: '2031-12-10T13:30:00.000Z',
    });
    expect(await usd(m)).toEqual({ available: 1050, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    // Codes by direction and SEC code.
    for (const [id, code, message] of [
      [credit.body.id, 'R01', 'returns debits only'],
      [debit.body.id, 'R23', 'returns credits only'],
      [debit.body.id, 'R29', 'applies to CCD entries only'],
      [debit.body.id, 'R61', "ODFI's code for dishonoring"],
      [debit.body.id, 'R99', 'is not a Nacha return code'],
    ] as const) {
      const res = await post(m, `/v1/inbound_transfers/${id}/return`, { code });
      expect(res.status, code).toBe(400);
      expect(res.body.error, code).toMatchObject({
        code: code === 'R99' ? 'parameter_invalid' : 'return_code_not_allowed',
        param: 'code',
      });
      expect(String((res.body.error as Json).message)).toContain(message);
    }
    expect(await usd(m)).toEqual({ available: 1050, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    // Friday: past the 2-banking-day frame of R01, inside the 60 days of R10.
    await advanceTo(m, '2031-12-12T15:00:00.000Z');
    const late = await post(m, `/v1/inbound_transfers/${debit.body.id}/return`, { code: 'R01' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'return_deadline_passed', param: 'code' });
    expect(String((late.body.error as Json).message)).toContain('2031-12-10T13:30:00.000Z');
    await ledgerBalanced(m);
    const unauthorized = await post(m, `/v1/inbound_transfers/${debit.body.id}/return`, { code: 'R10' });
    expect(unauthorized.status, unauthorized.text).toBe(200);
    expect(unauthorized.body).toMatchObject({
      state: 'returned',
      return_code: 'R10',
      returned_at: '2031-12-12T15:00:00.000Z',
      return_deadline: null,
    });
    expect(await usd(m)).toEqual({ available: 1350, pending: 0, reserved: 0 });
    await ledgerBalanced(m);
    const again = await post(m, `/v1/inbound_transfers/${debit.body.id}/return`, { code: 'R10' });
    expect(again.status).toBe(409);
    expect(await usd(m)).toEqual({ available: 1350, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    expect(await eventTypes(m, String(debit.body.id))).toEqual([
      'inbound_transfer.created',
      'inbound_transfer.settled',
      'inbound_transfer.returned',
    ]);
    expect(await eventTypes(m, String(instant.body.id))).toEqual([
      'inbound_transfer.created',
      'inbound_transfer.completed',
    ]);
    const listed = await get(m, '/v1/inbound_transfers?state=returned');
    expect((listed.body.data as Json[]).map((row) => row.id)).toEqual([debit.body.id]);
    expect((await get(m, '/v1/inbound_transfers?rail=fednow')).body.data).toHaveLength(1);
    expect((await get(m, '/v1/inbound_transfers?state=nonsense')).body.data).toHaveLength(0);

    // The webhooks: every inbound_transfer event, signed, each matching the document.
    await post(m, '/v1/clock/advance', { seconds: 1 });
    const delivered = receiver.received
      .map((r) => new Webhook(String(hook.body.secret)).verify(r.body, headerMap(r.headers)) as Json)
      .filter((event) => (event.data as { object: Json }).object.id === debit.body.id)
      .map((event) => event.type);
    expect(delivered.sort()).toEqual([
      'inbound_transfer.created',
      'inbound_transfer.returned',
      'inbound_transfer.settled',
    ]);
    receiver.assertConforming();
  });
});

describe('inbound transfers over GraphQL and webhooks', () => {
  it('Same-Day ACH across Christmas, a credit refused with R23, FedNow, each delivered and signed', async () => {
    receiver.received.length = 0;
    // Wednesday 2031-12-24, 17:00 ET: after the last window; Thursday is Christmas.
    const m = await merchantAt('2031-12-24T22:00:00.000Z', '0');
    const endpoint = await post(m, '/v1/webhook_endpoints', { url: receiver.url });
    expect(endpoint.status).toBe(200);
    const secret = String(endpoint.body.secret);
    const FIELDS =
      'id rail direction state amount { amount currency } secCode expectedArrivalAt expectedSettlementAt settledAt returnCode returnDeadline originator { name accountNumberLast4 }';

    const created = (
      await gql(
        m,
        `mutation($amount: Decimal!) { simulateInboundTransfer(rail: same_day_ach, direction: credit, amount: $amount,
          currency: USD, originator: { name: "Client Co", routingNumber: "021000021", accountNumber: "000555000111" }) {
          __typename ... on MutationSimulateInboundTransferSuccess { data { ${FIELDS} } }
          ... on SandbankError { code message }
        } }`,
        { amount: '75.00' },
      )
    ).simulateInboundTransfer as { data: Json };
    expect(created.data).toMatchObject({
      rail: 'same_day_ach',
      direction: 'credit',
      state: 'pending',
      amount: { amount: '75.00', currency: 'USD' },
      secCode: 'CCD',
      // Christmas is skipped: Friday's first window, settled at 13:00 ET.
      expectedArrivalAt: '2031-12-26T15:30:00.000Z',
      expectedSettlementAt: '2031-12-26T18:00:00.000Z',
      originator: { name: 'Client Co', accountNumberLast4: '0111' },
    });
    const id = String(created.data.id);
    expect(await usd(m)).toEqual({ available: 0, pending: 75, reserved: 0 });
    await ledgerBalanced(m);

    // Christmas Day passes with nothing due; Friday 13:00 ET it settles.
    expect(await advanceTo(m, '2031-12-25T23:00:00.000Z')).toEqual([]);
    // "Next settlement" knows inbound entries: the clock lands on Friday 13:00 ET.
    const next = await post(m, '/v1/clock/advance', { next: 'settlement' });
    expect(next.status, next.text).toBe(200);
    expect(next.body.now).toBe('2031-12-26T18:00:00.000Z');
    const read = await gql(m, `{ inboundTransfer(id: "${id}") { ${FIELDS} } }`);
    expect(read.inboundTransfer).toMatchObject({
      state: 'settled',
      settledAt: '2031-12-26T18:00:00.000Z',
      returnDeadline: '2031-12-30T13:30:00.000Z',
    });
    expect(await usd(m)).toEqual({ available: 75, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    // The merchant refuses the credit (R23): it leaves available.
    const refused = (
      await gql(
        m,
        `mutation { returnInboundTransfer(id: "${id}", code: "R23") {
          __typename ... on MutationReturnInboundTransferSuccess { data { ${FIELDS} } }
          ... on SandbankError { code message }
        } }`,
      )
    ).returnInboundTransfer as Json;
    expect(refused).toMatchObject({
      __typename: 'MutationReturnInboundTransferSuccess',
      data: { state: 'returned', returnCode: 'R23' },
    });
    expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    // An instant credit, then a settle of it: 409 through GraphQL too.
    const fednow = (
      await gql(
        m,
        `mutation { simulateInboundTransfer(rail: fednow, direction: credit, amount: "40.00", currency: USD,
          originator: { name: "Friend", routingNumber: "021000021", accountNumber: "1234" }) {
          __typename ... on MutationSimulateInboundTransferSuccess { data { id state } }
        } }`,
      )
    ).simulateInboundTransfer as { data: Json };
    expect(fednow.data.state).toBe('completed');
    const settleInstant = (
      await gql(
        m,
        `mutation { simulateInboundTransferSettle(id: "${fednow.data.id}") {
          __typename ... on SandbankError { code message }
        } }`,
      )
    ).simulateInboundTransferSettle as Json;
    expect(settleInstant).toMatchObject({ __typename: 'SandbankError', code: 'invalid_state' });
    expect(await usd(m)).toEqual({ available: 40, pending: 0, reserved: 0 });
    await ledgerBalanced(m);

    const list = await gql(m, '{ inboundTransfers(first: 10) { edges { node { id state rail } } } }');
    expect((list.inboundTransfers as { edges: { node: Json }[] }).edges.map((e) => e.node.state)).toEqual([
      'completed',
      'returned',
    ]);
    const onFedNow = await gql(m, '{ inboundTransfers(rail: fednow) { edges { node { id } } } }');
    expect((onFedNow.inboundTransfers as { edges: { node: Json }[] }).edges.map((e) => e.node.id)).toEqual([
      fednow.data.id,
    ]);
    // An unknown rail is refused, as REST refuses it (400), not answered with an empty list.
    const badRail = await t.gql<Json>(
      '{ inboundTransfers(rail: "nonsense") { edges { node { id } } } }',
      {},
      {
        key: m.secretKey,
      },
    );
    expect(badRail.errors?.[0]?.message).toContain('nonsense');
    expect((await get(m, '/v1/inbound_transfers?rail=nonsense')).status).toBe(400);
    const node = await gql(m, `{ node(id: "${id}") { __typename id } }`);
    expect(node.node).toEqual({ __typename: 'InboundTransfer', id });

    // Deliveries: signed by the endpoint's secret, every one matching the document.
    await post(m, '/v1/clock/advance', { seconds: 1 });
    const types = receiver.received
      .map((r) => new Webhook(secret).verify(r.body, headerMap(r.headers)) as { type: string })
      .map((event) => event.type)
      .filter((type) => type.startsWith('inbound_transfer.'));
    expect(types.sort()).toEqual(
      [
        'inbound_transfer.created',
        'inbound_transfer.settled',
        'inbound_transfer.returned',
        'inbound_transfer.created',
        'inbound_transfer.completed',
      ].sort(),
    );
    receiver.assertConforming();
  });
});

describe('inbound transfers racing their own steps', () => {
  it('settle now racing the settle job, then returns racing each other: each step happens once', async () => {
    // Monday 2031-12-08 12:00 ET: a Same-Day ACH entry goes in the 14:45 window, settled 17:00 ET.
    const m = await merchantAt('2031-12-08T17:00:00.000Z', '0');
    for (let round = 0; round < 4; round++) {
      const debit = await inbound(m, {
        rail: 'same_day_ach',
        direction: 'debit',
        amount: '20.00',
        sec_code: 'PPD',
      });
      expect(debit.status, debit.text).toBe(200);
      const settlesAt = String(debit.body.expected_settlement_at);
      // Settle it through the API while the clock runs the settle job of the same instant.
      const [settled, advanced] = await Promise.all([
        post(m, `/v1/simulate/inbound_transfers/${debit.body.id}/settle`),
        post(m, '/v1/clock/advance', { to: settlesAt }),
      ]);
      expect(advanced.status, advanced.text).toBe(200);
      expect([200, 409]).toContain(settled.status);
      await ledgerBalanced(m);
      expect((await get(m, `/v1/inbound_transfers/${debit.body.id}`)).body.state).toBe('settled');
      const returns = await Promise.all(
        ['R10', 'R01', 'R10'].map((code) =>
          post(m, `/v1/inbound_transfers/${debit.body.id}/return`, { code }),
        ),
      );
      expect(returns.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      await ledgerBalanced(m);
      expect(await eventTypes(m, String(debit.body.id))).toEqual([
        'inbound_transfer.created',
        'inbound_transfer.settled',
        'inbound_transfer.returned',
      ]);
      // Taken and given back once: the balance is where it started.
      expect(await usd(m)).toEqual({ available: 0, pending: 0, reserved: 0 });
      // The next round starts after this one's settlement, the next morning.
      await advanceTo(m, new Date(Date.parse(settlesAt) + 16 * 3600 * 1000).toISOString());
    }
  });
});
