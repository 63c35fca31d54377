/**
 * Saved counterparties and the corrections notifications of change make to them: a transfer names
 * one (`counterparty: "cpty_…"`), a magic account's NOC (200XX) arrives the next banking day after
 * settlement and corrects it, the next transfer uses the corrected data, and refusing the NOC
 * reverts it. Also over GraphQL, and `transfer.notification_of_change` delivered to a real receiver.
 *
 * 2031-12-02 is a Tuesday (EST, UTC−5): Same-Day ACH created at 09:00 ET is submitted at the 10:30
 * cut-off and settles 13:00 ET (18:00Z); a magic NOC arrives the next banking day at 13:00 ET.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
beforeEach(() => {
  receiver.received.length = 0;
});

const { post, get, usd, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const TUESDAY_0900 = '2031-12-02T14:00:00.000Z';
const SETTLED = '2031-12-02T18:00:00.000Z';
const NOC_ARRIVES = '2031-12-03T18:00:00.000Z';
const ROUTING = '021000021';

const expectLedgerBalancedOf = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

async function counterparty(m: TestMerchant, fields: Json = {}): Promise<Json> {
  const res = await post(m, '/v1/counterparties', {
    name: 'Acme Supplies',
    routing_number: ROUTING,
    account_number: '20003',
    account_type: 'checking',
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function debitTo(m: TestMerchant, to: unknown): Promise<Json> {
  const res = await post(m, '/v1/transfers', {
    rail: 'same_day_ach',
    direction: 'debit',
    amount: '40.00',
    currency: 'USD',
    counterparty: to,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('saved counterparties', () => {
  it('are saved with the account masked, listed, found by id; bad accounts are 400 and save nothing', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const saved = await counterparty(m, { account_number: '000123456789', individual_id: 'EMP-0042' });
    expect(saved).toMatchObject({
      object: 'counterparty',
      name: 'Acme Supplies',
      routing_number: ROUTING,
      account_number: '••••6789',
      account_type: 'checking',
      individual_id: 'EMP-0042',
      corrections: [],
      created_at: TUESDAY_0900,
    });
    expect(JSON.stringify(saved)).not.toContain('000123456789');
    expect(String(saved.id)).toMatch(/^cpty_/);
    expect((await get(m, `/v1/counterparties/${saved.id}`)).body).toEqual(saved);
    expect(((await get(m, '/v1/counterparties')).body.data as Json[]).map((c) => c.id)).toEqual([saved.id]);
    for (const [fields, code, param] of [
      [{ routing_number: '021000022' }, 'invalid_routing_number', 'routing_number'],
      [{ account_number: '12' }, 'invalid_account_number', 'account_number'],
      [{ account_type: 'brokerage' }, 'parameter_invalid', 'account_type'],
      [{ name: undefined }, 'parameter_missing', 'name'],
    ] as const) {
      const res = await post(m, '/v1/counterparties', {
        name: 'Acme',
        routing_number: ROUTING,
        account_number: '000123456789',
        ...(fields as Json),
      });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body).toMatchObject({ error: { code, param } });
    }
    expect((await get(m, '/v1/counterparties')).body.data).toHaveLength(1);
    const other = await merchantAt(TUESDAY_0900);
    expect((await get(other, `/v1/counterparties/${saved.id}`)).status).toBe(404);
  });

  it('are listed newest first in pages, as every list: limit, starting_after, has_more, next_cursor', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const ids: string[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      ids.push(String((await counterparty(m, { name, account_number: '000123456789' })).id));
      await post(m, '/v1/clock/advance', { seconds: 1 });
    }
    const first = await get(m, '/v1/counterparties?limit=2');
    expect(first.body).toMatchObject({ status: 'success', has_more: true, next_cursor: ids[1] });
    expect((first.body.data as Json[]).map((c) => c.name)).toEqual(['Third', 'Second']);
    const next = await get(m, `/v1/counterparties?limit=2&starting_after=${first.body.next_cursor}`);
    expect(next.body).toMatchObject({ has_more: false, next_cursor: null });
    expect((next.body.data as Json[]).map((c) => c.id)).toEqual([ids[0]]);
    for (const query of ['limit=0', 'limit=101', 'starting_after=cpty%20x', 'page=2']) {
      const res = await get(m, `/v1/counterparties?${query}`);
      expect(res.status, query).toBe(400);
    }
    const gql = await t.gql<{ counterparties: Json }>(
      '{ counterparties(first: 2) { edges { node { name } } pageInfo { hasNextPage } } }',
      {},
      { key: m.secretKey },
    );
    expect(gql.data.counterparties).toEqual({
      edges: [{ node: { name: 'Third' } }, { node: { name: 'Second' } }],
      pageInfo: { hasNextPage: true },
    });
  });

  it('a transfer names one by id; an unknown id is 400 and creates nothing; inline accounts still say what is wrong', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const saved = await counterparty(m, { account_number: '000123456789', account_type: 'savings' });
    const transfer = await debitTo(m, saved.id);
    expect(transfer).toMatchObject({
      counterparty_id: saved.id,
      counterparty: {
        name: 'Acme Supplies',
        routing_number: ROUTING,
        account_number: '••••6789',
        account_type: 'savings',
      },
      notifications_of_change: [],
    });
    const unknown = await post(m, '/v1/transfers', {
      rail: 'ach',
      direction: 'debit',
      amount: '1.00',
      currency: 'USD',
      counterparty: 'cpty_01JD3NOSUCHCOUNTERPARTY0',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'counterparty' } });
    const missing = await post(m, '/v1/transfers', {
      rail: 'ach',
      direction: 'debit',
      amount: '1.00',
      currency: 'USD',
      counterparty: { name: 'Bob', account_number: '000123456789' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: { code: 'parameter_missing', param: 'counterparty.routing_number' },
    });
    expect((await get(m, '/v1/transfers')).body.data).toHaveLength(1);
  });
});

describe('payouts to a saved counterparty', () => {
  it('a payout names its destination by id (REST and GraphQL); an unknown one is 400 and holds nothing', async () => {
    const m = await merchantAt(TUESDAY_0900, '100.00');
    const saved = await counterparty(m, { account_number: '000123456789', name: 'Demo Store operating' });
    const payout = await post(m, '/v1/payouts', { amount: '30.00', currency: 'USD', destination: saved.id });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    expect(payout.body).toMatchObject({
      counterparty_id: saved.id,
      destination: { name: 'Demo Store operating', routing_number: ROUTING, account_number: '••••6789' },
    });
    const unknown = await post(m, '/v1/payouts', {
      amount: '30.00',
      currency: 'USD',
      destination: 'cpty_01JD3NOSUCHCOUNTERPARTY0',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'destination' } });
    expect(await usd(m)).toEqual({ available: 70, pending: 0, reserved: 30 });
    const gql = await t.gql<{ createPayout: { data: Json } }>(
      `mutation { createPayout(amount: "5.00", currency: USD, destinationId: "${saved.id}") {
        ... on MutationCreatePayoutSuccess { data { counterpartyId destination { name } } }
      } }`,
      {},
      { key: m.secretKey },
    );
    expect(gql.data.createPayout.data).toEqual({
      counterpartyId: saved.id,
      destination: { name: 'Demo Store operating' },
    });
    // Both an inline account and a saved one: refused (REST's one field cannot hold both), nothing made.
    const inline = `{ name: "Other", routingNumber: "${ROUTING}", accountNumber: "000987654321" }`;
    const both = await t.gql<{ createPayout: Json; createTransfer: Json }>(
      `mutation {
        createPayout(amount: "5.00", currency: USD, destination: ${inline}, destinationId: "${saved.id}") {
          ... on SandbankError { code param } }
        createTransfer(rail: ach, direction: debit, amount: "5.00", currency: USD, counterparty: ${inline}, counterpartyId: "${saved.id}") {
          ... on SandbankError { code param } }
      }`,
      {},
      { key: m.secretKey },
    );
    expect(both.errors).toBeUndefined();
    expect(both.data).toEqual({
      createPayout: { code: 'parameter_invalid', param: 'destination' },
      createTransfer: { code: 'parameter_invalid', param: 'counterparty' },
    });
    expect(await usd(m)).toEqual({ available: 65, pending: 0, reserved: 35 });
    expect(((await get(m, '/v1/transfers')).body.data as Json[]).length).toBe(0);
    await expectLedgerBalancedOf(m);
  });
});

describe('a notification of change corrects the saved counterparty', () => {
  it('20008 and 20061 are ordinary accounts: C08 is IAT only, C61 a refusal code', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const ids = [];
    for (const account of ['20008', '20061'])
      ids.push(
        String((await debitTo(m, { name: 'Bob', routing_number: ROUTING, account_number: account })).id),
      );
    expect(await advanceTo(m, '2031-12-05T18:00:00.000Z')).not.toContain(
      `transfer.notification_of_change@${NOC_ARRIVES}`,
    );
    for (const id of ids)
      expect((await get(m, `/v1/transfers/${id}`)).body).toMatchObject({
        state: 'settled',
        notifications_of_change: [],
      });
  });

  it('20003 (C03): the NOC arrives the next banking day, corrects routing and account; the next entry uses them; refusing reverts', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const saved = await counterparty(m);
    const first = await debitTo(m, saved.id);
    const id = String(first.id);
    expect(await advanceTo(m, '2031-12-03T17:59:59.000Z')).toEqual([
      'transfer.submit@2031-12-02T15:30:00.000Z',
      'transfer.settle@2031-12-02T18:00:00.000Z',
    ]);
    expect((await get(m, `/v1/transfers/${id}`)).body.notifications_of_change).toEqual([]);
    expect(await advanceTo(m, NOC_ARRIVES)).toEqual([`transfer.notification_of_change@${NOC_ARRIVES}`]);
    const noticed = (await get(m, `/v1/transfers/${id}`)).body;
    expect(noticed).toMatchObject({
      state: 'settled',
      // The entry keeps what it was sent with.
      counterparty: { routing_number: ROUTING, account_number: '••••0003' },
      notifications_of_change: [
        {
          code: 'C03',
          reason: 'Incorrect transit/routing number and bank account number',
          corrected_data: { routing_number: '021000034', account_number: '••••0003' },
          counterparty: saved.id,
          received_at: NOC_ARRIVES,
          refuse_by: '2031-12-19T04:59:59.000Z',
          refused_at: null,
        },
      ],
    });
    // The corrected account number (920003) is the counterparty's from now on: masked like it.
    expect(JSON.stringify(noticed)).not.toContain('920003');
    const events = await get(m, `/v1/events?object_id=${id}&limit=100`);
    expect(JSON.stringify(events.body)).toContain('••••0003');
    expect(JSON.stringify(events.body)).not.toContain('920003');
    expect(await eventTypes(m, id)).toEqual([
      'transfer.created',
      'transfer.submitted',
      'transfer.settled',
      'transfer.notification_of_change',
    ]);
    expect(await usd(m)).toEqual({ available: 40, pending: 0, reserved: 0 });
    await expectLedgerBalancedOf(m);

    const corrected = (await get(m, `/v1/counterparties/${saved.id}`)).body;
    expect(corrected).toMatchObject({
      routing_number: '021000034',
      account_number: '••••0003',
      corrections: [
        {
          code: 'C03',
          transfer: id,
          corrected_data: { routing_number: '021000034', account_number: '••••0003' },
          received_at: NOC_ARRIVES,
          refused_at: null,
        },
      ],
    });
    expect(JSON.stringify(corrected)).not.toContain('920003');
    const list = (await get(m, '/v1/counterparties')).body;
    expect(JSON.stringify(list)).toContain(String(saved.id));
    expect(JSON.stringify(list)).not.toContain('920003');
    const viaGraphql = await t.gql<{ counterparty: Json; transfer: Json }>(
      `{ counterparty(id: "${saved.id}") { accountNumberLast4 corrections { correctedData { routingNumber accountNumberLast4 } } }
         transfer(id: "${id}") { notificationsOfChange { correctedData { accountNumberLast4 } } } }`,
      {},
      { key: m.secretKey },
    );
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data).toEqual({
      counterparty: {
        accountNumberLast4: '0003',
        corrections: [{ correctedData: { routingNumber: '021000034', accountNumberLast4: '0003' } }],
      },
      transfer: { notificationsOfChange: [{ correctedData: { accountNumberLast4: '0003' } }] },
    });

    // The next entry goes to the corrected account: 920003 is no magic account, so no NOC follows.
    const second = await debitTo(m, saved.id);
    expect(second).toMatchObject({
      counterparty: { routing_number: '021000034' },
      counterparty_id: saved.id,
    });
    await advanceTo(m, '2031-12-05T18:00:00.000Z');
    expect((await get(m, `/v1/transfers/${second.id}`)).body).toMatchObject({
      state: 'settled',
      notifications_of_change: [],
    });

    // The merchant refuses the NOC: the counterparty goes back to what it was.
    const refused = await post(m, `/v1/transfers/${id}/notification_of_change/refuse`, { code: 'C67' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(200);
    expect(refused.body.notifications_of_change).toMatchObject([
      {
        refused_at: '2031-12-05T18:00:00.000Z',
        refusal_code: 'C67',
        refusal_reason: 'Routing Number not from Original Entry Detail Record',
      },
    ]);
    expect((await eventTypes(m, id)).at(-1)).toBe('transfer.notification_of_change_refused');
    expect((await get(m, `/v1/counterparties/${saved.id}`)).body).toMatchObject({
      routing_number: ROUTING,
      corrections: [{ code: 'C03', refused_at: '2031-12-05T18:00:00.000Z', refusal_code: 'C67' }],
    });
    const third = await debitTo(m, saved.id);
    expect(third).toMatchObject({ counterparty: { routing_number: ROUTING, account_number: '••••0003' } });
    await expectLedgerBalancedOf(m);
  });

  it('C05 via the simulate step changes the account type; C09 the individual id; given values are checked', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const saved = await counterparty(m, { account_number: '000123456789', individual_id: 'EMP-0042' });
    const id = String((await debitTo(m, saved.id)).id);
    const notify = (body: Json) => post(m, `/v1/simulate/transfers/${id}/notification_of_change`, body);
    // Not settled yet: 409 before any check of the code.
    const early = await notify({ code: 'C05' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: { code: 'invalid_state' } });
    await advanceTo(m, SETTLED);
    for (const [body, param] of [
      [{ code: 'C02', corrected_data: { account_number: '123456' } }, 'corrected_data.account_number'],
      [{ code: 'C02', corrected_data: { routing_number: '021000022' } }, 'corrected_data.routing_number'],
      [{ code: 'C02', corrected_data: { routing_number: ROUTING } }, 'corrected_data.routing_number'],
      [{ code: 'C02', corrected_data: { routing_number: '790000051' } }, 'corrected_data.routing_number'],
      [{ code: 'R01' }, 'code'],
    ] as const) {
      const res = await notify(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'parameter_invalid', param } });
    }
    const res = await notify({ code: 'C05' });
    expect(res.status).toBe(200);
    expect(res.body.notifications_of_change).toMatchObject([
      { code: 'C05', corrected_data: { account_type: 'savings', transaction_code: '37' } },
    ]);
    const second = await notify({ code: 'C09' });
    expect(second.status).toBe(409);
    expect((await get(m, `/v1/counterparties/${saved.id}`)).body).toMatchObject({
      account_type: 'savings',
      individual_id: 'EMP-0042',
    });
    expect((await debitTo(m, saved.id)).counterparty).toMatchObject({ account_type: 'savings' });

    const other = String((await debitTo(m, saved.id)).id);
    await post(m, `/v1/simulate/transfers/${other}/submit`);
    await post(m, `/v1/simulate/transfers/${other}/settle`);
    const c09 = await post(m, `/v1/simulate/transfers/${other}/notification_of_change`, {
      code: 'C09',
      corrected_data: { individual_id: 'EMP-0043' },
    });
    expect(c09.body.notifications_of_change).toMatchObject([
      { code: 'C09', corrected_data: { individual_id: 'EMP-0043' } },
    ]);
    expect((await get(m, `/v1/counterparties/${saved.id}`)).body).toMatchObject({
      individual_id: 'EMP-0043',
      corrections: [{ code: 'C05' }, { code: 'C09' }],
    });
  });

  it('an inline account: the NOC is kept on the transfer only; RTP and unsettled entries get none', async () => {
    const m = await merchantAt(TUESDAY_0900, '1000.00');
    const inline = await debitTo(m, {
      name: 'Bob',
      routing_number: ROUTING,
      account_number: '20001',
    });
    await advanceTo(m, NOC_ARRIVES);
    expect((await get(m, `/v1/transfers/${inline.id}`)).body).toMatchObject({
      counterparty_id: null,
      notifications_of_change: [
        { code: 'C01', counterparty: null, corrected_data: { account_number: '••••0001' } },
      ],
    });
    const rtp = await post(m, '/v1/transfers', {
      rail: 'rtp',
      direction: 'credit',
      amount: '5.00',
      currency: 'USD',
      counterparty: { name: 'Bob', routing_number: ROUTING, account_number: '20001' },
    });
    await advanceTo(m, '2031-12-03T18:00:10.000Z');
    const res = await post(m, `/v1/simulate/transfers/${rtp.body.id}/notification_of_change`, {
      code: 'C01',
    });
    expect(res.status).toBe(409);
    const refuse = await post(m, `/v1/transfers/${rtp.body.id}/notification_of_change/refuse`, {
      code: 'C61',
    });
    expect(refuse.status).toBe(409);
    // FedNow is an instant rail too: the step says so, rather than asking for a settled entry.
    const fednow = await post(m, '/v1/transfers', {
      rail: 'fednow',
      direction: 'credit',
      amount: '5.00',
      currency: 'USD',
      counterparty: { name: 'Bob', routing_number: ROUTING, account_number: '20001' },
    });
    expect(fednow.status, JSON.stringify(fednow.body)).toBe(200);
    await advanceTo(m, '2031-12-03T18:00:20.000Z');
    for (const path of [
      'simulate/transfers/{id}/notification_of_change',
      'transfers/{id}/notification_of_change/refuse',
    ]) {
      const res = await post(m, `/v1/${path.replace('{id}', String(fednow.body.id))}`, {
        code: path.startsWith('simulate') ? 'C01' : 'C61',
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        error: { code: 'invalid_state', message: expect.stringMatching(/FedNow/) },
      });
    }
    await expectLedgerBalancedOf(m);
  });
});

describe('concurrent steps', () => {
  it('six NOCs on one transfer at once: one arrives, the counterparty is corrected once', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const saved = await counterparty(m, { account_number: '000123456789' });
    const id = String((await debitTo(m, saved.id)).id);
    await advanceTo(m, SETTLED);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(m, `/v1/simulate/transfers/${id}/notification_of_change`, {
          code: 'C01',
          corrected_data: { account_number: `55500012${i}` },
        }),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const won = answers.find((res) => res.status === 200)?.body as Json;
    const cpty = (await get(m, `/v1/counterparties/${saved.id}`)).body;
    expect(cpty.corrections).toHaveLength(1);
    const [noc] = won.notifications_of_change as Json[];
    expect(cpty.account_number).toMatch(/^••••012\d$/);
    expect(cpty.account_number).toBe((noc?.corrected_data as Json | undefined)?.account_number);
    expect(
      (await eventTypes(m, id)).filter((type) => type === 'transfer.notification_of_change'),
    ).toHaveLength(1);
    // Six refusals at once: one reverts the correction, the others find it refused.
    const refusals = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(m, `/v1/transfers/${id}/notification_of_change/refuse`, { code: 'C68' }),
      ),
    );
    expect(refusals.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect((await get(m, `/v1/counterparties/${saved.id}`)).body).toMatchObject({
      account_number: '••••6789',
      corrections: [{ refusal_code: 'C68' }],
    });
    await expectLedgerBalancedOf(m);
  });
});

describe('the time frames of an NOC and of a return', () => {
  it('a return must reach the originating bank by the opening of business (08:30 ET) of the 2nd banking day; an NOC may be sent until its end', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(
        String(
          (await debitTo(m, { name: 'Bob', routing_number: ROUTING, account_number: '000123456789' })).id,
        ),
      );
    await advanceTo(m, SETTLED); // Tuesday 13:00 ET: settled; the 2nd banking day is Thursday 12-04
    const [noc1, ret1, noc2, ret2] = ids as [string, string, string, string];
    await advanceTo(m, '2031-12-04T13:29:59.500Z'); // Thursday 08:29:59.5 EST
    const ret = await post(m, `/v1/simulate/transfers/${ret1}/return`, { code: 'R01' });
    expect(ret.status, JSON.stringify(ret.body)).toBe(200);
    await advanceTo(m, '2031-12-04T13:30:00.000Z');
    const lateReturn = await post(m, `/v1/simulate/transfers/${ret2}/return`, { code: 'R01' });
    expect(lateReturn.body).toMatchObject({
      error: { code: 'return_deadline_passed', deadline: '2031-12-04T13:30:00.000Z' },
    });
    // An NOC is transmitted within two banking days of settlement: all of Thursday.
    await advanceTo(m, '2031-12-05T04:59:59.500Z');
    const noc = await post(m, `/v1/simulate/transfers/${noc1}/notification_of_change`, { code: 'C01' });
    expect(noc.status, JSON.stringify(noc.body)).toBe(200);
    await advanceTo(m, '2031-12-05T05:00:00.000Z');
    const lateNoc = await post(m, `/v1/simulate/transfers/${noc2}/notification_of_change`, { code: 'C01' });
    expect(lateNoc.body).toMatchObject({ error: { code: 'time_frame_passed' } });
    expect(String((lateNoc.body.error as Json).message)).toContain('2031-12-05T04:59:59.000Z');
    await expectLedgerBalancedOf(m);
  });
});

describe('GraphQL and webhooks', () => {
  it('createCounterparty, createTransfer(counterpartyId), the NOC mutation and its fields; the webhook is delivered', async () => {
    const m = await merchantAt(TUESDAY_0900, '0');
    const ep = await post(m, '/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['transfer.notification_of_change', 'transfer.notification_of_change_refused'],
    });
    expect(ep.status).toBe(200);
    const gql = <T = Json>(query: string) => t.gql<T>(query, {}, { key: m.secretKey });
    const created = await gql<{ createCounterparty: Json & { data: Json } }>(`mutation {
      createCounterparty(name: "Ann Lee", routingNumber: "${ROUTING}", accountNumber: "000123456789", accountType: savings) {
        __typename ... on MutationCreateCounterpartySuccess { data { id name accountNumberLast4 accountType } }
      } }`);
    expect(created.errors).toBeUndefined();
    const cpty = created.data.createCounterparty.data;
    expect(cpty).toMatchObject({ name: 'Ann Lee', accountNumberLast4: '6789', accountType: 'savings' });
    const transfer = await gql<{ createTransfer: { data: Json } }>(`mutation {
      createTransfer(rail: same_day_ach, direction: debit, amount: "12.00", currency: USD, counterpartyId: "${cpty.id}") {
        ... on MutationCreateTransferSuccess { data { id counterpartyId counterparty { routingNumber } } }
        ... on SandbankError { code message }
      } }`);
    const tr = transfer.data.createTransfer.data;
    expect(tr).toMatchObject({ counterpartyId: cpty.id, counterparty: { routingNumber: ROUTING } });
    await advanceTo(m, SETTLED);
    const noc = await gql<{ simulateTransferNotificationOfChange: { data: Json } }>(`mutation {
      simulateTransferNotificationOfChange(id: "${tr.id}", code: C02, correctedData: { routingNumber: "011000015" }) {
        ... on MutationSimulateTransferNotificationOfChangeSuccess {
          data { notificationsOfChange { code reason counterparty correctedData { routingNumber accountNumberLast4 } receivedAt refuseBy } }
        }
        ... on SandbankError { code message }
      } }`);
    expect(noc.errors).toBeUndefined();
    expect(noc.data.simulateTransferNotificationOfChange.data).toEqual({
      notificationsOfChange: [
        {
          code: 'C02',
          reason: 'Incorrect transit/routing number',
          counterparty: cpty.id,
          correctedData: { routingNumber: '011000015', accountNumberLast4: null },
          receivedAt: SETTLED,
          refuseBy: '2031-12-18T04:59:59.000Z',
        },
      ],
    });
    const read = await gql<{ counterparty: Json }>(`{ counterparty(id: "${cpty.id}") {
      routingNumber corrections { code transfer correctedData { routingNumber } refusedAt } } }`);
    expect(read.data.counterparty).toEqual({
      routingNumber: '011000015',
      corrections: [
        { code: 'C02', transfer: tr.id, correctedData: { routingNumber: '011000015' }, refusedAt: null },
      ],
    });
    const refused = await gql<{ refuseTransferNotificationOfChange: { data: Json } }>(`mutation {
      refuseTransferNotificationOfChange(id: "${tr.id}", code: C67) {
        ... on MutationRefuseTransferNotificationOfChangeSuccess { data { notificationsOfChange { refusalCode refusalReason } } }
      } }`);
    expect(refused.data.refuseTransferNotificationOfChange.data).toEqual({
      notificationsOfChange: [
        { refusalCode: 'C67', refusalReason: 'Routing Number not from Original Entry Detail Record' },
      ],
    });
    const node = await gql<{ node: Json }>(
      `{ node(id: "${cpty.id}") { ... on Counterparty { routingNumber } } }`,
    );
    expect(node.data.node).toEqual({ routingNumber: ROUTING });

    await post(m, '/v1/clock/advance', { seconds: 1 });
    const types = receiver.received.map((r) => {
      const payload = new Webhook(String(ep.body.secret)).verify(r.body, headerMap(r.headers)) as Json;
      return [payload.type, ((payload.data as Json).object as Json).id];
    });
    expect(types).toEqual([
      ['transfer.notification_of_change', tr.id],
      ['transfer.notification_of_change_refused', tr.id],
    ]);
    const delivered = JSON.parse(receiver.received[0]?.body ?? '{}') as { data: { object: Json } };
    expect(delivered.data.object.notifications_of_change).toMatchObject([
      { code: 'C02', corrected_data: { routing_number: '011000015' } },
    ]);
  });
});
