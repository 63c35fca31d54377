/**
 * Concurrent load on fresh merchants: many clients at once doing everything that moves money —
 * card payments captured at once or later and refunded, transfers (credits and debits), payouts, virtual-card
 * authorizations, and closed-loop payments where a merchant pays with a virtual card it issued
 * itself or one another merchant issued (both ledgers move in one transaction). The merchants are
 * new, so the races also create their ledger accounts (some have none at all when the race starts).
 *
 * Every request must answer 200 (the funds always suffice), the balances must be exactly what the
 * operations add up to, every merchant's ledger must sum to zero per currency with each posting
 * announced by exactly one event, and nothing may deadlock: the server logs no error, the
 * transaction helper saw no deadlock or serialization failure, and on Postgres the database's own
 * deadlock counter (pg_stat_database) does not move. With TEST_DATABASE_URL the requests run on a
 * pool of 24 connections, so their transactions really overlap; on PGlite they serialize.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { type Database, queryRows } from '../../src/db/client.ts';
import { events } from '../../src/db/events.table.ts';
import { transactionConflicts } from '../../src/db/tx.ts';
import { verifyLedger } from '../../src/modules/ledger/ledger.queries.ts';
import { ledgerAccounts, ledgerPostings } from '../../src/modules/ledger/ledger.table.ts';
import { clockedMerchants, type Json } from '../support/clocked-merchant.ts';
import {
  createTestApp,
  debugLogCapture,
  openTestDatabase,
  shuffle,
  type TestApp,
  type TestMerchant,
} from '../support/harness.ts';

const CLIENTS = 30;
/** On PGlite the requests run one at a time: a few hundred take a while on a busy machine. */
const RACE_TIMEOUT_MS = 60_000;
const APPLICATION_NAME = 'sandbank_ledger_stress';

let t: TestApp;
const { post } = clockedMerchants(() => t);

const visa = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const bank = { name: 'Acme Supplies', routing_number: '021000021', account_number: '000123456789' };

type IssuedCard = { id: string; number: string; cvc: string; exp_month: number; exp_year: number };

interface Answer {
  step: string;
  status: number;
  body: Json;
}

/** One client's sequence of requests (each step may use the previous answers). */
type Flow = (answers: Answer[]) => Promise<void>;

interface Keyed {
  merchant: TestMerchant;
  path: string;
  body: Json;
  key: string;
  first: Answer;
}

/** What every request answered, and the keyed ones to replay afterwards. */
class Recorder {
  readonly answers: Answer[] = [];
  readonly keyed: Keyed[] = [];

  async send(m: TestMerchant, step: string, path: string, body: Json, key?: string): Promise<Answer> {
    const res = key
      ? await t.rest<Json>('POST', path, { key: m.secretKey, body, headers: { 'Idempotency-Key': key } })
      : await post(m, path, body);
    const answer = { step, status: res.status, body: res.body };
    this.answers.push(answer);
    if (key) this.keyed.push({ merchant: m, path, body, key, first: answer });
    return answer;
  }

  /** Every answer that is not a 200, with what it said (empty when all went well). */
  failures(): string[] {
    return this.answers
      .filter((answer) => answer.status !== 200)
      .map((answer) => `${answer.step}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

const cardOf = (card: IssuedCard) => ({
  number: card.number,
  exp_month: card.exp_month,
  exp_year: card.exp_year,
  cvc: card.cvc,
});

async function issue(m: TestMerchant): Promise<IssuedCard> {
  const res = await post(m, '/v1/virtual_cards', { brand: 'visa', cardholder_name: 'Grace Hopper' });
  expect(res.status).toBe(200);
  return res.body as IssuedCard;
}

/**
 * A new merchant with `funds` USD topped up ('0': no ledger account at all). Nothing in the races
 * depends on the clock: no clock is advanced and no background runner runs, so nothing falls due.
 */
async function freshMerchant(funds: string): Promise<TestMerchant> {
  const m = await t.merchant('Stress');
  if (funds !== '0')
    expect((await post(m, '/v1/simulate/balance/top_up', { amount: funds, currency: 'USD' })).status).toBe(
      200,
    );
  return m;
}

/** The merchants' USD balances in major units, straight from their account rows. */
async function usdOf(database: Database, merchants: TestMerchant[]) {
  const rows = await database.db
    .select({
      merchantId: ledgerAccounts.merchantId,
      kind: ledgerAccounts.kind,
      balance: ledgerAccounts.balance,
    })
    .from(ledgerAccounts)
    .where(
      and(
        inArray(
          ledgerAccounts.merchantId,
          merchants.map((m) => m.id),
        ),
        eq(ledgerAccounts.currency, 'USD'),
      ),
    );
  const of = (m: TestMerchant, kind: string) =>
    Number(rows.find((row) => row.merchantId === m.id && row.kind === kind)?.balance ?? 0n) / 100;
  return merchants.map((m) => ({
    available: of(m, 'available'),
    pending: of(m, 'pending'),
    reserved: of(m, 'reserved'),
  }));
}

/** Runs the flows from `clients` concurrent clients, each taking the next flow when it is done. */
async function runClients(flows: Flow[], clients = CLIENTS): Promise<void> {
  const queue = [...flows];
  const client = async () => {
    for (let flow = queue.shift(); flow; flow = queue.shift()) await flow([]);
  };
  await Promise.all(Array.from({ length: clients }, client));
}

/** Postgres's count of deadlocks it detected in this database (null on PGlite). */
async function serverDeadlocks(): Promise<number | null> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return null;
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // A session reports its statistics when it ends (or when idle, some seconds later): wait for
    // the stress pool's sessions to be gone, so the deadlocks they saw are counted.
    for (let polls = 0; polls < 2000; polls++) {
      const [open] = await client`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = ${APPLICATION_NAME}`;
      if (open?.n === 0) break;
    }
    await client`SELECT pg_stat_clear_snapshot()`;
    const [row] = await client`SELECT deadlocks::int AS n FROM pg_stat_database
      WHERE datname = current_database()`;
    return row?.n ?? 0;
  } finally {
    await client.end({ timeout: 5 });
  }
}

/**
 * Runs `race` against an app of its own (a pool of 24 connections on Postgres, closed at the end
 * so the server counts the deadlocks it saw), and checks that nothing deadlocked: no error in the
 * server's log, no deadlock or serialization failure seen by the transaction helper, and no
 * deadlock counted by Postgres.
 */
async function withStressApp(race: (database: Database) => Promise<void>): Promise<void> {
  const log = debugLogCapture('error');
  const conflictsBefore = { ...transactionConflicts };
  const deadlocksBefore = await serverDeadlocks();
  const database = await openTestDatabase({ connections: 24, applicationName: APPLICATION_NAME });
  t = await createTestApp({ database, logger: log.logger });
  try {
    await race(database);
  } finally {
    await t.close();
  }
  const deadlocksAfter = await serverDeadlocks();
  const seen = {
    // The server logs an unhandled error (a "deadlock detected" among them) behind every 500.
    serverLog: log.text(),
    transactionConflicts: Object.fromEntries(
      Object.entries(transactionConflicts).map(([name, n]) => [name, n - conflictsBefore[name as never]]),
    ),
    postgresDeadlocks: deadlocksBefore === null ? null : (deadlocksAfter ?? 0) - deadlocksBefore,
  };
  expect(seen).toEqual({
    serverLog: '',
    transactionConflicts: { deadlocks: 0, serializationFailures: 0, retried: 0, gaveUp: 0 },
    postgresDeadlocks: deadlocksBefore === null ? null : 0,
  });
}

/**
 * The ledgers of these merchants: no posting unbalanced, balances equal to their entries, zero
 * per currency, and exactly one balance_transaction.created event per posting.
 */
async function expectWholeLedgers(database: Database, merchants: TestMerchant[]): Promise<void> {
  const ids = merchants.map((m) => m.id);
  for (const id of ids) {
    const check = await verifyLedger(database.db, id);
    expect(check.mismatches).toEqual([]);
    for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
  }
  const [totals] = await queryRows<{ postings: number; announced: number; twice: number }>(
    database.db,
    sql`SELECT
      (SELECT count(*)::int FROM ${ledgerPostings} WHERE ${inArray(ledgerPostings.merchantId, ids)}) AS postings,
      (SELECT count(DISTINCT ${events.objectId})::int FROM ${events}
        WHERE ${and(inArray(events.merchantId, ids), eq(events.type, 'balance_transaction.created'))}) AS announced,
      (SELECT count(*)::int FROM (SELECT ${events.objectId} FROM ${events}
        WHERE ${and(inArray(events.merchantId, ids), eq(events.type, 'balance_transaction.created'))}
        GROUP BY ${events.objectId} HAVING count(*) > 1) twice) AS twice`,
  );
  expect(totals?.postings).toBeGreaterThan(0);
  expect(totals).toEqual({ postings: totals?.postings, announced: totals?.postings, twice: 0 });
}

/** Replays every keyed request: the stored answer comes back, marked as a replay, and nothing moves. */
async function expectReplays(
  database: Database,
  recorder: Recorder,
  merchants: TestMerchant[],
): Promise<void> {
  const before = await usdOf(database, merchants);
  for (const keyed of recorder.keyed) {
    const res = await t.rest<Json>('POST', keyed.path, {
      key: keyed.merchant.secretKey,
      body: keyed.body,
      headers: { 'Idempotency-Key': keyed.key },
    });
    expect(res.status, keyed.path).toBe(keyed.first.status);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(res.body).toEqual(keyed.first.body);
  }
  expect(await usdOf(database, merchants)).toEqual(before);
}

describe('concurrent load on fresh merchants', () => {
  it(
    'mixed operations from 30 clients: all 200, exact balances, whole ledgers, no deadlock',
    async () => {
      await withStressApp(async (database) => {
        const recorder = new Recorder();
        const funded = await Promise.all(Array.from({ length: 16 }, () => freshMerchant('1000.00')));
        const empty = await Promise.all(Array.from({ length: 6 }, () => freshMerchant('0')));
        const cards = await Promise.all(funded.map(issue));
        const flows: Flow[] = [];
        funded.forEach((m, i) => {
          const send = recorder.send.bind(recorder, m);
          const own = cards[i]!;
          const partner = cards[(i + 1) % funded.length]!;
          const key = (name: string) => `${m.id}-${name}`;
          flows.push(
            // Captured at once, no key: the group commit.
            async () => {
              await send('card captured at once', '/v1/card_payments', {
                amount: '10.00',
                currency: 'USD',
                card: visa,
              });
            },
            // Authorized, captured in part under a key, then refunded in part.
            async () => {
              const held = await send('card authorized', '/v1/card_payments', {
                amount: '20.00',
                currency: 'USD',
                card: visa,
                capture: false,
              });
              const path = `/v1/card_payments/${held.body.id}`;
              await send('card capture', `${path}/capture`, { amount: '15.00' }, key('capture'));
              await send('card refund', `${path}/refunds`, { amount: '5.00' });
            },
            async () => {
              await send(
                'transfer credit',
                '/v1/transfers',
                {
                  amount: '25.00',
                  currency: 'USD',
                  rail: 'ach',
                  direction: 'credit',
                  counterparty: { ...bank, account_type: 'checking' },
                },
                key('transfer'),
              );
              // A debit pulls money: nothing moves before its submission at the cut-off.
              await send('transfer debit', '/v1/transfers', {
                amount: '40.00',
                currency: 'USD',
                rail: 'ach',
                direction: 'debit',
                counterparty: { ...bank, account_type: 'checking' },
              });
            },
            async () => {
              await send('payout', '/v1/payouts', {
                amount: '30.00',
                currency: 'USD',
                destination: { ...bank, account_type: 'checking' },
              });
            },
            async () => {
              await send(
                'virtual card authorization',
                `/v1/simulate/virtual_cards/${own.id}/authorizations`,
                {
                  amount: '12.00',
                  merchant: { name: 'Corner Shop', mcc: '5411' },
                },
              );
            },
            // The closed loop with its own card: issuer and acquirer are one merchant.
            async () => {
              await send(
                'closed loop, own card',
                '/v1/card_payments',
                { amount: '7.00', currency: 'USD', card: cardOf(own) },
                key('own-card'),
              );
            },
            // The closed loop with the next merchant's card (who pays with the one after, and so on).
            async () => {
              const held = await send('closed loop, other card, authorized', '/v1/card_payments', {
                amount: '9.00',
                currency: 'USD',
                card: cardOf(partner),
                capture: false,
              });
              const path = `/v1/card_payments/${held.body.id}`;
              await send('closed loop, other card, capture', `${path}/capture`, {});
              await send('closed loop, other card, refund', `${path}/refunds`, { amount: '2.00' });
            },
          );
        });
        // Merchants with no ledger account yet: a closed-loop payment on a funded merchant's card
        // races their first card payment and their first top-up to create them.
        empty.forEach((m, i) => {
          const send = recorder.send.bind(recorder, m);
          flows.push(
            async () => {
              await send('empty: closed loop', '/v1/card_payments', {
                amount: '11.00',
                currency: 'USD',
                card: cardOf(cards[i]!),
              });
            },
            async () => {
              await send(
                'empty: card captured at once',
                '/v1/card_payments',
                { amount: '10.00', currency: 'USD', card: visa },
                `${m.id}-card`,
              );
            },
            async () => {
              await send('empty: top-up', '/v1/simulate/balance/top_up', {
                amount: '50.00',
                currency: 'USD',
              });
            },
          );
        });
        await runClients(shuffle(flows));
        expect(recorder.failures()).toEqual([]);

        // Available: refund 5, transfer 25, payout 30, authorization 12, own card 7, refund 2 of the
        // payment on the partner's card, 9 − 2 paid as issuer of the previous merchant's, and 11 as
        // issuer of an empty merchant's payment.
        expect(await usdOf(database, funded)).toEqual(
          funded.map((_, i) => ({
            available: 1000 - 5 - 25 - 30 - 12 - 7 - 2 - 7 - (i < empty.length ? 11 : 0),
            pending: 10 + 15 + 7 + 9,
            reserved: 25 + 30 + 12,
          })),
        );
        expect(await usdOf(database, empty)).toEqual(
          empty.map(() => ({ available: 50, pending: 21, reserved: 0 })),
        );
        await expectWholeLedgers(database, [...funded, ...empty]);
        await expectReplays(database, recorder, [...funded, ...empty]);
      });
    },
    RACE_TIMEOUT_MS,
  );

  it(
    '30 fresh merchants: the first payout races a closed-loop payment with their own card',
    async () => {
      await withStressApp(async (database) => {
        const recorder = new Recorder();
        const merchants = await Promise.all(Array.from({ length: 30 }, () => freshMerchant('500.00')));
        const cards = await Promise.all(merchants.map(issue));
        const flows = merchants.flatMap((m, i): Flow[] => [
          async () => {
            await recorder.send(m, 'first payout', '/v1/payouts', {
              amount: '30.00',
              currency: 'USD',
              destination: { ...bank, account_type: 'checking' },
            });
          },
          async () => {
            await recorder.send(m, 'closed loop, own card', '/v1/card_payments', {
              amount: '7.00',
              currency: 'USD',
              card: cardOf(cards[i]!),
            });
          },
        ]);
        await runClients(flows, flows.length);
        expect(recorder.failures()).toEqual([]);
        expect(await usdOf(database, merchants)).toEqual(
          merchants.map(() => ({ available: 463, pending: 7, reserved: 30 })),
        );
        await expectWholeLedgers(database, merchants);
      });
    },
    RACE_TIMEOUT_MS,
  );
});
