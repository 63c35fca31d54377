/**
 * Bank statements on the simulated clock: the month-of-history fixture's banking days, each with
 * a statement whose balances equal the ledger's at its cut-off (summed here from the balance
 * transactions) and its BAI2 file read by a reader written from the BAI2 specification; the
 * intraday report; the refusals. The XML files are checked against their schemas by the outside
 * tier (test/outside/bank-files.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBai2 } from '../../support/bai2.ts';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectRefusedUnchanged } from '../../support/refusals.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const cents = (value: unknown) => Math.round(Number(value) * 100);

async function allPages(m: TestMerchant, path: string): Promise<Json[]> {
  const rows: Json[] = [];
  let after: string | null = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.get(m, `${path}${sep}limit=100${after ? `&starting_after=${after}` : ''}`);
    expect(res.status, res.text).toBe(200);
    rows.push(...(res.body.data as Json[]));
    if (!res.body.has_more) return rows;
    after = res.body.next_cursor as string;
  }
}

/** The ledger's balances at an instant, summed here from the postings (cents). */
function ledgerAt(postings: Json[], currency: string, at: string) {
  let ledger = 0;
  let available = 0;
  for (const p of postings) {
    if (p.currency !== currency || Date.parse(String(p.created_at)) >= Date.parse(at)) continue;
    ledger += cents(p.available) + cents(p.pending) + cents(p.reserved);
    available += cents(p.available);
  }
  return { ledger, available };
}

/** Banking days from `first` to `last`, by asking the API: a weekend or holiday is refused with 400. */
const nextDay = (date: string) =>
  new Date(Date.parse(`${date}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

describe('a month of history, day by day', () => {
  let m: TestMerchant;
  let postings: Json[];
  let produced: Json[];
  beforeAll(async () => {
    m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/fixtures', { name: 'month-of-history' });
    expect(res.status, res.text).toBe(200);
    postings = await allPages(m, '/v1/balance_transactions');
    produced = await allPages(m, '/v1/statements');
  });

  it("every banking day has a statement whose balances are the ledger's at its cut-off", async () => {
    const first = String(produced.at(-1)?.date);
    const now = String((await t.get(m, '/v1/clock')).body.now);
    let previous: Json | null = null;
    let days = 0;
    for (let date = first; ; date = nextDay(date)) {
      const res = await t.post(m, '/v1/statements', { currency: 'USD', date });
      if (res.status === 409) {
        expect(res.body.error).toMatchObject({ code: 'statement_not_ready' });
        expect(Date.parse(String((res.body.error as Json).ready_at))).toBeGreaterThan(Date.parse(now));
        break;
      }
      if (res.status === 400) {
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'date' });
        continue;
      }
      expect(res.status, res.text).toBe(200);
      const s = res.body;
      days += 1;
      const opening = ledgerAt(postings, 'USD', String(s.period_start));
      const closing = ledgerAt(postings, 'USD', String(s.period_end));
      expect(cents(s.opening_ledger_balance)).toBe(opening.ledger);
      expect(cents(s.closing_ledger_balance)).toBe(closing.ledger);
      expect(cents(s.opening_available_balance)).toBe(opening.available);
      expect(cents(s.closing_available_balance)).toBe(closing.available);
      expect(cents(s.closing_ledger_balance) - cents(s.opening_ledger_balance)).toBe(
        cents(s.total_credits) - cents(s.total_debits),
      );
      if (previous) {
        expect(s.period_start).toBe(previous.period_end);
        expect(s.opening_ledger_balance).toBe(previous.closing_ledger_balance);
      }
      previous = s;
    }
    expect(days).toBeGreaterThanOrEqual(18);
    // The last closed day's closing balance is today's ledger when nothing was booked since.
    const balances =
      ((await t.get(m, '/v1/balances')).body.data as Json[]).find((b) => b.currency === 'USD') ?? {};
    const today = ledgerAt(postings, 'USD', now);
    expect(cents(balances.available) + cents(balances.pending) + cents(balances.reserved)).toBe(today.ledger);
  });

  it('the end of each banking day with activity produced its statement and a statement.created event', async () => {
    const events = await allPages(m, '/v1/events?type=statement.created');
    const ids = new Set(events.map((e) => ((e.data as Json).object as Json).id));
    expect(produced.length).toBeGreaterThanOrEqual(8);
    for (const s of produced) expect(ids.has(s.id)).toBe(true);
    expect(produced.map((s) => s.currency)).toContain('EUR');
    const event = events.at(-1) as Json;
    const object = (event.data as Json).object as Json;
    expect(object.bai2_url).toMatch(/\/v1\/statements\/stmt_\w+\/file\?format=bai2$/);
  });

  it("each statement's BAI2 file parses, its controls add up and it says what the statement says", async () => {
    for (const s of produced) {
      const res = await t.get(m, `/v1/statements/${s.id}/file?format=bai2`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.headers.get('content-disposition')).toContain(`${s.id}.bai`);
      const file = parseBai2(res.text);
      const group = file.groups[0];
      expect(group?.modifier).toBe('2'); // final previous-day data
      expect(group?.asOfDate).toBe(String(s.date).slice(2).replaceAll('-', ''));
      const account = group?.accounts[0];
      expect(account?.number).toBe(s.account_number);
      expect(account?.currency).toBe(s.currency);
      const amount = (code: string) => Number(account?.amounts.get(code)?.amount);
      const minor = s.currency === 'JPY' ? 1 : 100;
      expect(amount('010')).toBe(Math.round(Number(s.opening_ledger_balance) * minor));
      expect(amount('015')).toBe(Math.round(Number(s.closing_ledger_balance) * minor));
      expect(amount('040')).toBe(Math.round(Number(s.opening_available_balance) * minor));
      expect(amount('045')).toBe(Math.round(Number(s.closing_available_balance) * minor));
      expect(account?.amounts.get('100')?.count).toBe(s.credit_count);
      expect(account?.amounts.get('400')?.count).toBe(s.debit_count);
      const details = account?.details ?? [];
      expect(details).toHaveLength(Number(s.credit_count) + Number(s.debit_count));
      const credit = (code: string) => Number(code) < 400;
      const sum = (rows: typeof details) => rows.reduce((total, d) => total + Number(d.amount), 0);
      expect(sum(details.filter((d) => credit(d.code)))).toBe(amount('100'));
      expect(sum(details.filter((d) => !credit(d.code)))).toBe(amount('400'));
      // Each line names its posting and the object that caused it.
      for (const d of details) {
        const posting = postings.find((p) => p.id === d.bankRef);
        expect(posting, d.bankRef).toBeDefined();
        expect((posting as Json).source).toMatchObject({ id: d.customerRef });
      }
    }
  });

  it('GraphQL answers the same files, and the intraday report of the day so far', async () => {
    const s = produced[0] as Json;
    const res = await t.gql<{ statement: { date: string; file: string } }>(
      'query($id: ID!) { statement(id: $id) { date file(format: bai2) } }',
      { id: s.id },
      { key: m.secretKey },
    );
    expect(res.errors, JSON.stringify(res)).toBeUndefined();
    expect(res.data, JSON.stringify(res)).toBeDefined();
    expect(res.data.statement.file).toBe((await t.get(m, `/v1/statements/${s.id}/file?format=bai2`)).text);
    const bai = await t.get(m, '/v1/intraday_report?currency=USD&format=bai2');
    expect(parseBai2(bai.text).groups[0]?.modifier).toBe('3'); // interim same-day data
    const viaGql = await t.gql<{ intradayReport: string }>(
      '{ intradayReport(currency: USD, format: bai2) }',
      {},
      { key: m.secretKey },
    );
    expect(parseBai2(viaGql.data.intradayReport).groups[0]?.accounts[0]?.number).toBe(
      parseBai2(bai.text).groups[0]?.accounts[0]?.number,
    );
  });
});

describe('refused, and nothing written', () => {
  const refuse = (m: TestMerchant, body: Json, status: number, code: string) =>
    expectRefusedUnchanged(t, m, { path: '/v1/statements', body, status, code, lists: ['/v1/statements'] });

  it('a day in the future is 409 statement_not_ready with the instant it will be ready', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    await t.post(m, '/v1/clock/advance', { to: '2031-03-04T15:00:00Z' }); // a Tuesday
    const error = await refuse(m, { currency: 'USD', date: '2031-03-04' }, 409, 'statement_not_ready');
    expect(error.ready_at).toBe('2031-03-05T05:00:00.000Z');
    await refuse(m, { currency: 'USD', date: '2031-03-08' }, 400, 'parameter_invalid'); // a Saturday
    await refuse(m, { currency: 'USD', date: '2031-02-30' }, 400, 'parameter_invalid');
    await refuse(m, { currency: 'CHF', date: '2031-03-03' }, 400, 'currency_unsupported');
    // A past day without activity has a statement on request: balances zero, no lines.
    const quiet = await t.post(m, '/v1/statements', { currency: 'USD', date: '2031-03-03' });
    expect(quiet.body).toMatchObject({
      object: 'statement',
      date: '2031-03-03',
      credit_count: 0,
      debit_count: 0,
    });
    // Asked again, the same statement.
    expect((await t.post(m, '/v1/statements', { currency: 'USD', date: '2031-03-03' })).body.id).toBe(
      quiet.body.id,
    );
  });

  it('an unknown format is 400 naming the formats', async () => {
    const m = await t.merchant();
    const res = await t.get(m, '/v1/intraday_report?currency=USD&format=ofx');
    expect(res.status).toBe(400);
    expect(String((res.body.error as Json).message)).toMatch(/bai2 or camt052/);
  });
});
