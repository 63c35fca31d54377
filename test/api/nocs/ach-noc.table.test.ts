/**
 * Every code of reference/ach_noc_codes.json through the real REST endpoints, on the merchant's
 * simulated clock: whether Sandbank's RDFI sends it (C01-C07, C09, C13) or refuses it (C08, C14:
 * IAT only; C10-C12: not for PPD/CCD/WEB; C61-C69: refusal codes, sent by the ODFI), on a credit
 * and on a debit, at the last allowed instant of its time frame (accepted) and one second after
 * (409 time_frame_passed naming that instant). Refused-NOC codes (C61-C69) the same way, through
 * POST /v1/transfers/{id}/notification_of_change/refuse, with the NOC each one applies to.
 *
 * The instants: 2031-12-02 is a Tuesday (EST, UTC−5). An entry settled Tuesday 09:00 ET may get its
 * NOC until Thursday 2031-12-04 23:59:59 ET (2 banking days) = 2031-12-05T04:59:59Z; an NOC
 * received Tuesday may be refused until 2031-12-17 23:59:59 ET (15 calendar days) = 2031-12-18T04:59:59Z.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nocCodes from '../../../reference/ach_noc_codes.json' with { type: 'json' };
import { clockedMerchants, type Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const { post, get, merchantAt, advanceTo, eventTypes } = clockedMerchants(() => t);

const TUESDAY_0900 = '2031-12-02T14:00:00.000Z';
const NOC_LAST = '2031-12-05T04:59:59.000Z';
const NOC_LATE = '2031-12-05T05:00:00.000Z';
const REFUSE_LAST = '2031-12-18T04:59:59.000Z';
const REFUSE_LATE = '2031-12-18T05:00:00.000Z';
const DIRECTIONS = ['credit', 'debit'] as const;
type Direction = (typeof DIRECTIONS)[number];

/**
 * What each change code does, written out here (not read from the code under test): the corrected
 * fields of a code Sandbank sends, or why it is refused. A code of the reference missing here fails.
 */
const CHANGE: Record<string, { corrects: string[] } | { refused: RegExp }> = {
  C01: { corrects: ['account_number'] },
  C02: { corrects: ['routing_number'] },
  C03: { corrects: ['account_number', 'routing_number'] },
  C04: { corrects: ['name'] },
  C05: { corrects: ['account_type', 'transaction_code'] },
  C06: { corrects: ['account_number', 'account_type', 'transaction_code'] },
  C07: { corrects: ['account_number', 'account_type', 'routing_number', 'transaction_code'] },
  C08: { refused: /IAT/ },
  C09: { corrects: ['individual_id'] },
  C10: { refused: /not in the current Nacha change-code list/ },
  C11: { refused: /not in the current Nacha change-code list/ },
  C12: { refused: /not in the current Nacha change-code list/ },
  C13: { corrects: ['addenda_information'] },
  C14: { refused: /IAT/ },
};

/**
 * The NOC each refused-NOC code is tried on, and one correcting another field: a refusal code names
 * an error in the NOC itself (its routing or account number, transaction code or individual id not
 * the original entry's, a trace number, a misroute, bad formatting), so it may refuse any NOC.
 */
const REFUSAL: Record<string, { on: string; alsoOn?: string }> = {
  C61: { on: 'C01' },
  C62: { on: 'C02' },
  C63: { on: 'C04' },
  C64: { on: 'C09', alsoOn: 'C01' },
  C65: { on: 'C13' },
  C66: { on: 'C05' },
  C67: { on: 'C02', alsoOn: 'C01' },
  C68: { on: 'C06', alsoOn: 'C02' },
  C69: { on: 'C07', alsoOn: 'C04' },
};

const expectLedgerBalancedOf = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

/** A Same-Day ACH entry settled now (Tuesday 09:00 ET) through the simulate steps: its id. */
async function settledEntry(m: TestMerchant, direction: Direction): Promise<string> {
  const created = await post(m, '/v1/transfers', {
    rail: 'same_day_ach',
    direction,
    amount: '10.00',
    currency: 'USD',
    counterparty: {
      name: 'Acme Supplies',
      routing_number: '021000021',
      account_number: '000123456789',
      account_type: 'checking',
    },
    description: 'Invoice 42',
  });
  expect(created.status).toBe(200);
  const id = String(created.body.id);
  expect((await post(m, `/v1/simulate/transfers/${id}/submit`)).status).toBe(200);
  const settled = await post(m, `/v1/simulate/transfers/${id}/settle`);
  expect(settled.body).toMatchObject({ state: 'settled', settled_at: TUESDAY_0900 });
  await expectLedgerBalancedOf(m);
  return id;
}

const notify = (m: TestMerchant, id: string, code: string) =>
  post(m, `/v1/simulate/transfers/${id}/notification_of_change`, { code });
const refuse = (m: TestMerchant, id: string, code: string) =>
  post(m, `/v1/transfers/${id}/notification_of_change/refuse`, { code });

it('the table covers every code of the reference, and only those', () => {
  const codes = nocCodes.map((row) => row.code);
  expect(Object.keys({ ...CHANGE, ...REFUSAL }).sort()).toEqual([...codes].sort());
  for (const row of nocCodes) expect(row.code in REFUSAL).toBe(row.refused_noc);
});

describe.each(nocCodes.filter((row) => !row.refused_noc).map((row) => [row.code, row.title] as const))(
  'change code %s (%s)',
  (code) => {
    const expected = CHANGE[code] ?? { refused: /never/ };
    it.each(DIRECTIONS)('on a %s entry', async (direction) => {
      const m = await merchantAt(TUESDAY_0900);
      const onTime = await settledEntry(m, direction);
      const late = await settledEntry(m, direction);
      await advanceTo(m, NOC_LAST);
      const res = await notify(m, onTime, code);
      if ('refused' in expected) {
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: { code: 'parameter_invalid', param: 'code' } });
        expect(JSON.stringify(res.body)).toMatch(expected.refused);
        expect((await get(m, `/v1/transfers/${onTime}`)).body.notifications_of_change).toEqual([]);
        expect(await eventTypes(m, onTime)).not.toContain('transfer.notification_of_change');
        return;
      }
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [noc] = res.body.notifications_of_change as Json[];
      expect(noc).toMatchObject({
        code,
        received_at: NOC_LAST,
        refuse_by: '2031-12-20T04:59:59.000Z',
        counterparty: null,
        refused_at: null,
      });
      const corrected = noc?.corrected_data as Json;
      expect(Object.keys(corrected).sort()).toEqual(expected.corrects);
      if ('transaction_code' in corrected) {
        // A checking entry corrected to savings: 32 (credit) or 37 (debit).
        expect(corrected).toMatchObject({
          account_type: 'savings',
          transaction_code: direction === 'credit' ? '32' : '37',
        });
      }
      if ('routing_number' in corrected) expect(corrected.routing_number).not.toBe('021000021');
      expect(res.body.state).toBe('settled');
      expect((await eventTypes(m, onTime)).at(-1)).toBe('transfer.notification_of_change');

      await advanceTo(m, NOC_LATE);
      const refused = await notify(m, late, code);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: { code: 'time_frame_passed', deadline: NOC_LATE } });
      expect(JSON.stringify(refused.body)).toContain(NOC_LAST);
      expect((await get(m, `/v1/transfers/${late}`)).body.notifications_of_change).toEqual([]);
      await expectLedgerBalancedOf(m);
    });
  },
);

describe.each(nocCodes.filter((row) => row.refused_noc).map((row) => [row.code, row.title] as const))(
  'refused-NOC code %s (%s)',
  (code) => {
    const rule = REFUSAL[code] ?? { on: 'C01' };
    it('is not a change code: the simulated RDFI does not send it', async () => {
      const m = await merchantAt(TUESDAY_0900);
      const id = await settledEntry(m, 'credit');
      const res = await notify(m, id, code);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('refused-NOC code');
    });

    it.each(DIRECTIONS)(`refuses a ${rule.on} NOC on a %s entry until its refuse_by`, async (direction) => {
      const m = await merchantAt(TUESDAY_0900);
      const onTime = await settledEntry(m, direction);
      const late = await settledEntry(m, direction);
      for (const id of [onTime, late]) expect((await notify(m, id, rule.on)).status).toBe(200);
      await advanceTo(m, REFUSE_LAST);
      const res = await refuse(m, onTime, code);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((res.body.notifications_of_change as Json[])[0]).toMatchObject({
        code: rule.on,
        refused_at: REFUSE_LAST,
        refusal_code: code,
      });
      expect((await eventTypes(m, onTime)).at(-1)).toBe('transfer.notification_of_change_refused');
      const again = await refuse(m, onTime, code);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ error: { code: 'invalid_state' } });

      await advanceTo(m, REFUSE_LATE);
      const tooLate = await refuse(m, late, code);
      expect(tooLate.status).toBe(409);
      expect(tooLate.body).toMatchObject({ error: { code: 'time_frame_passed', deadline: REFUSE_LATE } });
      expect(JSON.stringify(tooLate.body)).toContain(REFUSE_LAST);
      expect((await get(m, `/v1/transfers/${late}`)).body.notifications_of_change).toMatchObject([
        { refused_at: null },
      ]);
      await expectLedgerBalancedOf(m);
    });

    if (rule.alsoOn) {
      const alsoOn = rule.alsoOn;
      it(`refuses a ${alsoOn} NOC too (it names an error of the NOC, whatever field it corrects)`, async () => {
        const m = await merchantAt(TUESDAY_0900);
        const id = await settledEntry(m, 'debit');
        expect((await notify(m, id, alsoOn)).status).toBe(200);
        const res = await refuse(m, id, code);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.notifications_of_change).toMatchObject([{ code: alsoOn, refusal_code: code }]);
      });
    }
  },
);

describe('a corrected NOC after a refusal', () => {
  // Refused Wednesday 12-03 12:00 EST: 5 banking days later is Wednesday 12-10; its last second
  // 23:59:59 EST is 2031-12-11T04:59:59Z.
  const REFUSED_AT = '2031-12-03T17:00:00.000Z';
  const CORRECTED_LAST = '2031-12-11T04:59:59.000Z';
  const CORRECTED_LATE = '2031-12-11T05:00:00.000Z';

  it('may follow the refused NOC within 5 banking days; not before a refusal, nor after its window', async () => {
    const m = await merchantAt(TUESDAY_0900);
    const onTime = await settledEntry(m, 'debit');
    const late = await settledEntry(m, 'debit');
    for (const id of [onTime, late]) {
      expect((await notify(m, id, 'C01')).status).toBe(200);
      // Not refused: the RDFI has no reason to send another.
      const second = await notify(m, id, 'C02');
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ error: { code: 'invalid_state' } });
    }
    await advanceTo(m, REFUSED_AT);
    for (const id of [onTime, late]) expect((await refuse(m, id, 'C68')).status).toBe(200);

    // After the 2nd banking day of the entry's NOC window, inside the corrected NOC's 5 days.
    await advanceTo(m, CORRECTED_LAST);
    const corrected = await notify(m, onTime, 'C02');
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    expect(corrected.body.notifications_of_change).toMatchObject([
      { code: 'C01', refusal_code: 'C68' },
      { code: 'C02', received_at: CORRECTED_LAST, refused_at: null },
    ]);
    expect((await eventTypes(m, onTime)).at(-1)).toBe('transfer.notification_of_change');
    // The corrected one is refused like any other; a third may follow it.
    expect((await refuse(m, onTime, 'C61')).status).toBe(200);

    await advanceTo(m, CORRECTED_LATE);
    const tooLate = await notify(m, late, 'C02');
    expect(tooLate.status).toBe(409);
    expect(tooLate.body).toMatchObject({ error: { code: 'time_frame_passed', deadline: CORRECTED_LATE } });
    expect(JSON.stringify(tooLate.body)).toContain('corrected notification of change within 5 banking days');
    expect((await get(m, `/v1/transfers/${late}`)).body.notifications_of_change).toHaveLength(1);
    await expectLedgerBalancedOf(m);
  });
});
