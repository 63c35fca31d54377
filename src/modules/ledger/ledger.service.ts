import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Tx } from '../../db/client.ts';
import { updateIfState } from '../../db/compare-and-set.ts';
import { insertRecordsSql, type RecordCell, recordset } from '../../db/json-records.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { invalidState, transition } from '../../kernel/state-machine.ts';
import {
  createdEventsSql,
  type EventInput,
  fanOutCtes,
  recordEvent,
  recordEvents,
} from '../events/events.service.ts';
import { holdMachine } from './ledger.machine.ts';
import { balanceTransactionResource } from './ledger.resource.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

export const MERCHANT_ACCOUNTS = ['available', 'pending', 'reserved'] as const;
export const SYSTEM_ACCOUNTS = ['external', 'card_network', 'bank_rails', 'fx_liquidity'] as const;
export type MerchantAccount = (typeof MERCHANT_ACCOUNTS)[number];
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];
export type AccountKind = MerchantAccount | SystemAccount;

export type PostingRow = typeof ledgerPostings.$inferSelect;

export interface EntryInput {
  account: AccountKind;
  /** Signed minor units: positive raises the account's balance. */
  amount: bigint;
}

export interface PostingInput {
  merchantId: string;
  currency: CurrencyCode;
  type: string;
  source: { type: string; id: string };
  description?: string | null;
  at: Date;
  entries: EntryInput[];
  /** 'pending' opens a hold; everything else is posted at once. */
  state?: 'posted' | 'pending';
  relatedId?: string | null;
  /**
   * Merchant accounts this posting may take below zero. By default none may: a posting that would
   * overdraw one fails with 422 insufficient_balance and writes nothing.
   */
  allowNegative?: readonly MerchantAccount[];
}

/** Every kind, in the order a ledger's missing accounts are inserted in. */
const ACCOUNT_KINDS: readonly AccountKind[] = [...MERCHANT_ACCOUNTS, ...SYSTEM_ACCOUNTS].sort();

/** A merchant's accounts a transaction holds locked: `currency:kind` → account id. */
type HeldAccounts = Map<string, string>;

const accountKey = (currency: string, kind: string) => `${currency}:${kind}`;

/**
 * Per transaction, the merchants whose ledger accounts it has locked, with their ids. Keyed by the
 * transaction object: a savepoint is an object of its own, so what it locked or created is not
 * remembered past it (rolled back, its locks and rows are gone; released, its parent asks again
 * and is answered at once, holding the locks already).
 */
const heldLedgers = new WeakMap<Tx, Map<string, HeldAccounts>>();

/**
 * Locks every ledger account of these merchants — all currencies, all kinds — that the transaction
 * does not hold yet, in one statement, in account-id order. This is the lock order of
 * docs/concurrency.md: a transaction takes a merchant's ledger whole, the first time it touches
 * it, and a transaction that moves money for several merchants takes all of theirs at once. Row
 * locks acquired in one global order cannot form a cycle, so no two postings deadlock; and since
 * anyone touching a merchant's ledger first waits here, a posting that creates a missing account
 * below never waits on a concurrent creator that holds one of its locks. `FOR NO KEY UPDATE` is the
 * lock an UPDATE of the balance takes, so inserting entries that reference the accounts is not blocked.
 */
async function lockMerchantLedgers(
  tx: Tx,
  merchantIds: readonly string[],
): Promise<Map<string, HeldAccounts>> {
  let held = heldLedgers.get(tx);
  if (!held) {
    held = new Map();
    heldLedgers.set(tx, held);
  }
  const wanted = [...new Set(merchantIds)].filter((id) => !held.has(id));
  if (wanted.length === 0) return held;
  const rows = await tx
    .select({
      id: ledgerAccounts.id,
      merchantId: ledgerAccounts.merchantId,
      currency: ledgerAccounts.currency,
      kind: ledgerAccounts.kind,
    })
    .from(ledgerAccounts)
    .where(inArray(ledgerAccounts.merchantId, wanted))
    .orderBy(ledgerAccounts.id)
    .for('no key update');
  for (const id of wanted) held.set(id, new Map());
  for (const row of rows) held.get(row.merchantId)?.set(accountKey(row.currency, row.kind), row.id);
  return held;
}

/**
 * Creates a merchant's missing accounts in one currency — every kind at once, so a ledger is created
 * once and never piecemeal — while the transaction holds the merchant's ledger (lockMerchantLedgers):
 * a concurrent creator either got there first and committed, or is itself waiting for that lock.
 * An insert that meets a row a concurrent transaction is still inserting waits for it to end (on
 * a merchant with no account at all, nobody holds a lock yet); then the rows are read, and locked.
 */
async function createAccounts(
  tx: Tx,
  merchantId: string,
  currency: CurrencyCode,
  accounts: HeldAccounts,
  at: Date,
): Promise<void> {
  const missing = ACCOUNT_KINDS.filter((kind) => !accounts.has(accountKey(currency, kind)));
  await tx
    .insert(ledgerAccounts)
    .values(
      missing.map((kind) => ({
        id: newId('ledgerAccount'),
        merchantId,
        currency,
        kind,
        balance: 0n,
        createdAt: at,
      })),
    )
    .onConflictDoNothing({
      target: [ledgerAccounts.merchantId, ledgerAccounts.currency, ledgerAccounts.kind],
    });
  const rows = await tx
    .select({ id: ledgerAccounts.id, kind: ledgerAccounts.kind })
    .from(ledgerAccounts)
    .where(and(eq(ledgerAccounts.merchantId, merchantId), eq(ledgerAccounts.currency, currency)))
    .orderBy(ledgerAccounts.id)
    .for('no key update');
  for (const row of rows) accounts.set(accountKey(currency, row.kind), row.id);
  for (const kind of missing) {
    if (!accounts.has(accountKey(currency, kind)))
      throw new Error(`ledger account ${merchantId}:${currency}:${kind} missing after insert`);
  }
}

/**
 * The ids of a merchant's accounts in one currency, locked by this transaction (and created when
 * missing). Looked up by each transaction, never cached across transactions: a cached id may
 * belong to an account whose creating transaction has not committed yet or rolled back.
 */
async function accountIdsOf(
  tx: Tx,
  merchantId: string,
  currency: CurrencyCode,
  kinds: readonly AccountKind[],
  at: Date,
): Promise<Map<AccountKind, string>> {
  const accounts = (await lockMerchantLedgers(tx, [merchantId])).get(merchantId) as HeldAccounts;
  if (ACCOUNT_KINDS.some((kind) => !accounts.has(accountKey(currency, kind))))
    await createAccounts(tx, merchantId, currency, accounts, at);
  return new Map(kinds.map((kind) => [kind, accounts.get(accountKey(currency, kind)) as string]));
}

function isMerchantAccount(kind: AccountKind): kind is MerchantAccount {
  return (MERCHANT_ACCOUNTS as readonly string[]).includes(kind);
}

function assertBalanced(entries: EntryInput[]): void {
  if (entries.length < 2) throw new Error('a posting needs at least two entries');
  if (entries.some((entry) => entry.amount === 0n)) throw new Error('a ledger entry cannot be zero');
  const sum = entries.reduce((total, entry) => total + entry.amount, 0n);
  if (sum !== 0n) throw new Error(`posting does not balance: entries sum to ${sum}`);
}

function deltaOf(entries: EntryInput[], account: MerchantAccount): bigint {
  return entries
    .filter((entry) => entry.account === account)
    .reduce((total, entry) => total + entry.amount, 0n);
}

/** A posting's row: its effect on the merchant's three balances and its source. */
function postingValues(input: PostingInput, id: string): typeof ledgerPostings.$inferInsert {
  return {
    id,
    merchantId: input.merchantId,
    currency: input.currency,
    type: input.type,
    state: input.state ?? 'posted',
    sourceType: input.source.type,
    sourceId: input.source.id,
    description: input.description ?? null,
    relatedId: input.relatedId ?? null,
    availableDelta: deltaOf(input.entries, 'available'),
    pendingDelta: deltaOf(input.entries, 'pending'),
    reservedDelta: deltaOf(input.entries, 'reserved'),
    createdAt: input.at,
    updatedAt: input.at,
  };
}

/**
 * The only writer of money. Applies balanced entries to their accounts with
 * `UPDATE … SET balance = balance + $amount`, on accounts the transaction holds locked (the
 * merchant's whole ledger, in the global lock order of docs/concurrency.md), so concurrent postings
 * cannot deadlock and no update is lost. A debit of a merchant account is guarded against overdraft
 * (`balance + $amount >= 0`, on the balance read under the lock): of two debits racing for the same
 * funds, the second sees the first's result and fails cleanly with insufficient_balance.
 *
 * One statement does it all when the merchant's accounts in this currency exist (postOneSql): lock,
 * check, update, insert the posting and its entries, write its event. A currency's first posting
 * takes the step-by-step path, which creates the accounts.
 */
export async function post(tx: Tx, input: PostingInput): Promise<PostingRow> {
  assertBalanced(input.entries);
  const statement = postOneSql(input);
  const [result] = await queryRows<PostOneResult>(tx, statement.query);
  const locked = result?.locked ?? [];
  const held = heldLedgers.get(tx) ?? new Map<string, HeldAccounts>();
  heldLedgers.set(tx, held);
  held.set(input.merchantId, new Map(locked.map((row) => [accountKey(row.currency, row.kind), row.id])));
  if (result?.ready) {
    if (result.short) throw insufficientBalance(result.short, input.currency);
    return statement.posting;
  }
  return postStepwise(tx, input);
}

interface PostOneResult {
  /** Every account of the merchant, locked by the statement (all currencies). */
  locked: { id: string; currency: string; kind: AccountKind }[];
  /** Whether every account the posting touches exists. */
  ready: boolean;
  /** The first guarded account the posting would overdraw (nothing was written), or null. */
  short: AccountKind | null;
}

function insufficientBalance(account: AccountKind, currency: string): SandbankError {
  return new SandbankError('insufficient_balance', {
    message: `The ${account} ${currency} balance is too low for this operation.`,
  });
}

/**
 * post() as one statement. It locks the merchant's ledger (every account, in id order: the same
 * lock lockMerchantLedgers takes), reads the balances it locked, and writes — balances, posting,
 * entries, event, deliveries, announcement — only when every account exists and no guarded account
 * would go below zero. Otherwise it writes nothing and says why (ready, short).
 */
function postOneSql(input: PostingInput): { query: SQL; posting: PostingRow } {
  const allowNegative = new Set(input.allowNegative ?? []);
  // Per account: the net change, and the lowest point the balance passes through as the entries
  // apply in order — the step-by-step path checks each guarded debit against the running balance,
  // so this is what must stay at or above zero (null: no guarded debit on that account).
  const targets = new Map<AccountKind, { delta: bigint; low: bigint | null }>();
  for (const entry of input.entries) {
    const target = targets.get(entry.account) ?? { delta: 0n, low: null };
    target.delta += entry.amount;
    const guarded =
      entry.amount < 0n && isMerchantAccount(entry.account) && !allowNegative.has(entry.account);
    if (guarded && (target.low === null || target.delta < target.low)) target.low = target.delta;
    targets.set(entry.account, target);
  }
  const rows = [...targets].map(([kind, { delta, low }]) => ({
    kind,
    delta: delta.toString(),
    low: low === null ? null : low.toString(),
  }));
  const posting = postingValues(input, newId('posting')) as PostingRow;
  const entries = input.entries.map((entry) => ({
    id: newId('ledgerEntry'),
    kind: entry.account,
    amount: entry.amount.toString(),
  }));
  const ok = sql`(SELECT ready AND short IS NULL FROM ledger_check)`;
  const createdEvents = createdEventsSql([postingEvent(posting, 'created')], ok);
  const query = sql`WITH ledger_locked AS (
    SELECT a.id, a.currency, a.kind, a.balance FROM ledger_accounts a
    WHERE a.merchant_id = ${input.merchantId}
    ORDER BY a.id
    FOR NO KEY UPDATE OF a
  ), ledger_targets AS (
    SELECT l.id, v.kind, v.delta, v.low, l.balance
    FROM ${recordset(rows, 'kind text, delta bigint, low bigint')}
    JOIN ledger_locked l ON l.currency = ${input.currency} AND l.kind = v.kind
  ), ledger_check AS (
    SELECT count(*) = ${rows.length} AS ready,
      (SELECT t.kind FROM ledger_targets t WHERE t.balance + t.low < 0 ORDER BY t.id LIMIT 1) AS short
    FROM ledger_targets
  ), ledger_balances AS (
    UPDATE ledger_accounts a SET balance = a.balance + t.delta
    FROM ledger_targets t
    WHERE a.id = t.id AND ${ok}
  ), ledger_new_posting AS (
    ${insertRecordsSql(ledgerPostings, [posting], ok)}
  ), ledger_new_entries AS (
    INSERT INTO ledger_entries (id, posting_id, account_id, merchant_id, currency, amount, created_at)
    SELECT v.id, ${posting.id}, t.id, ${input.merchantId}, ${input.currency}, v.amount, ${input.at.toISOString()}::timestamptz
    FROM ${recordset(entries, 'id text, kind text, amount bigint')}
    JOIN ledger_targets t ON t.kind = v.kind
    WHERE ${ok}
  ), ${createdEvents.cte}, ${fanOutCtes(sql.raw('created_events'))}
  SELECT
    (SELECT coalesce(json_agg(json_build_object('id', l.id, 'currency', l.currency, 'kind', l.kind)), '[]'::json) FROM ledger_locked l) AS locked,
    (SELECT ready FROM ledger_check) AS ready,
    (SELECT short FROM ledger_check) AS short,
    (SELECT count(*) FROM announced) AS announced`;
  return { query, posting };
}

/**
 * post() in steps, for a posting that needs accounts created first: lock the ledger, create the
 * missing accounts, then update each balance (guarded debits with `… WHERE balance + $amount >= 0`),
 * insert the posting and its entries, and write its event.
 */
async function postStepwise(tx: Tx, input: PostingInput): Promise<PostingRow> {
  const allowNegative = new Set(input.allowNegative ?? []);
  const ids = await accountIdsOf(
    tx,
    input.merchantId,
    input.currency,
    input.entries.map((entry) => entry.account),
    input.at,
  );
  const resolved = input.entries.map((entry) => ({ ...entry, accountId: ids.get(entry.account)! }));
  resolved.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
  for (const entry of resolved) {
    const guarded =
      entry.amount < 0n && isMerchantAccount(entry.account) && !allowNegative.has(entry.account);
    const where = guarded
      ? and(
          eq(ledgerAccounts.id, entry.accountId),
          sql`${ledgerAccounts.balance} + ${entry.amount.toString()}::bigint >= 0`,
        )
      : eq(ledgerAccounts.id, entry.accountId);
    const updated = await tx
      .update(ledgerAccounts)
      .set({ balance: sql`${ledgerAccounts.balance} + ${entry.amount.toString()}::bigint` })
      .where(where)
      .returning({ id: ledgerAccounts.id });
    if (updated.length === 0) throw insufficientBalance(entry.account, input.currency);
  }
  const [posting] = await tx
    .insert(ledgerPostings)
    .values(postingValues(input, newId('posting')))
    .returning();
  if (!posting) throw new Error('posting insert returned no row');
  await tx.insert(ledgerEntries).values(
    resolved.map((entry) => ({
      id: newId('ledgerEntry'),
      postingId: posting.id,
      accountId: entry.accountId,
      merchantId: input.merchantId,
      currency: input.currency,
      amount: entry.amount,
      createdAt: input.at,
    })),
  );
  await emitPostingEvent(tx, posting, 'created');
  return posting;
}

/**
 * Balance transactions are objects with states too (pending → posted | voided; posted → reversed):
 * their creation and every state change is an event, in the posting's transaction (house rule: the outbox, docs/house-rules.md).
 */
function postingEvent(posting: PostingRow, change: string): EventInput {
  return {
    merchantId: posting.merchantId,
    type: `balance_transaction.${change}`,
    objectId: posting.id,
    data: { object: balanceTransactionResource(posting) },
    at: posting.updatedAt,
  };
}

async function emitPostingEvent(tx: Tx, posting: PostingRow, change: string): Promise<void> {
  await recordEvent(tx, postingEvent(posting, change));
}

/**
 * Several postings in one go (a group commit): each account's balance is updated once with the
 * batch's net change, in account-id order, and the postings, entries and their events are written
 * in bulk. Only for postings with no guarded debit (credits to merchant accounts, debits of system
 * accounts): a guarded debit must see the balance it takes from, one posting at a time — use post().
 */
export async function postMany(tx: Tx, inputs: PostingInput[]): Promise<PostingRow[]> {
  if (inputs.length === 0) return [];
  assertBulkPostable(inputs);
  const deltas = new Map<string, bigint>();
  const entryRows: (typeof ledgerEntries.$inferInsert)[] = [];
  const postingRows: (typeof ledgerPostings.$inferInsert)[] = [];
  // Ids in input order, so the result lines up with `inputs` whatever the grouping below.
  const postingIds = new Map(inputs.map((input) => [input, newId('posting')]));
  const groups = new Map<string, PostingInput[]>();
  for (const input of inputs) {
    const key = `${input.merchantId}\u0000${input.currency}`;
    groups.set(key, [...(groups.get(key) ?? []), input]);
  }
  // Every merchant's ledger at once, in the global lock order, before any is touched; then the
  // missing accounts are created under those locks.
  await lockMerchantLedgers(
    tx,
    inputs.map((input) => input.merchantId),
  );
  for (const [, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const first = group[0]!;
    const kinds = group.flatMap((input) => input.entries.map((entry) => entry.account));
    const ids = await accountIdsOf(tx, first.merchantId, first.currency, kinds, first.at);
    for (const input of group) {
      const postingId = postingIds.get(input)!;
      postingRows.push(postingValues(input, postingId));
      for (const entry of input.entries) {
        const accountId = ids.get(entry.account)!;
        deltas.set(accountId, (deltas.get(accountId) ?? 0n) + entry.amount);
        entryRows.push({
          id: newId('ledgerEntry'),
          postingId,
          accountId,
          merchantId: input.merchantId,
          currency: input.currency,
          amount: entry.amount,
          createdAt: input.at,
        });
      }
    }
  }
  for (const accountId of [...deltas.keys()].sort()) {
    const delta = deltas.get(accountId)!;
    if (delta === 0n) continue;
    await tx
      .update(ledgerAccounts)
      .set({ balance: sql`${ledgerAccounts.balance} + ${delta.toString()}::bigint` })
      .where(eq(ledgerAccounts.id, accountId));
  }
  const inserted = await tx.insert(ledgerPostings).values(postingRows).returning();
  const byId = new Map(inserted.map((posting) => [posting.id, posting]));
  const postings = inputs.map((input) => byId.get(postingIds.get(input)!)!);
  await tx.insert(ledgerEntries).values(entryRows);
  await recordEvents(
    tx,
    postings.map((posting) => postingEvent(posting, 'created')),
  );
  return postings;
}

/** Bulk postings take no guarded debit: each must balance and may only lower what cannot be overdrawn. */
function assertBulkPostable(inputs: PostingInput[]): void {
  for (const input of inputs) {
    assertBalanced(input.entries);
    const guarded = input.entries.find(
      (entry) =>
        entry.amount < 0n &&
        isMerchantAccount(entry.account) &&
        !input.allowNegative?.includes(entry.account),
    );
    if (guarded)
      throw new Error(`bulk postings cannot take a guarded debit (${guarded.account}); use post()`);
  }
}

/** The parts of one SQL statement that make a batch of postings (postManySql). */
export interface PostingsStatement {
  /** CTE definitions (comma-separated, no WITH) that lock, update and insert. */
  ctes: SQL;
  /**
   * True when every account the postings touch exists. When false nothing is written, and the
   * other parts of the statement must write nothing either (guard them with `WHERE ${ready}`);
   * the caller then takes the transactional path (postMany), which creates the accounts.
   */
  ready: SQL;
  /** The postings as they will be stored, in input order. */
  postings: PostingRow[];
  /** Their balance_transaction.created events, in input order, for the statement's events CTE. */
  events: EventInput[];
}

/**
 * postMany as parts of a single statement, so a group commit costs one round trip. The accounts it
 * touches are locked in account-id order first (`SELECT … ORDER BY id FOR UPDATE`: the global lock
 * order, in which transactions take whole ledgers too, so the two cannot deadlock), then each is
 * updated once with the batch's net change, and the postings and
 * entries are inserted. Accounts are never created here: a statement cannot update a row it inserts,
 * so a batch touching a missing account writes nothing and reports `ready` false.
 */
export function postManySql(inputs: PostingInput[]): PostingsStatement {
  assertBulkPostable(inputs);
  const accounts = new Map<
    string,
    { merchant_id: string; currency: string; kind: AccountKind; delta: bigint }
  >();
  const postings: PostingRow[] = [];
  const entries: Record<string, RecordCell>[] = [];
  for (const input of inputs) {
    const posting = postingValues(input, newId('posting')) as PostingRow;
    postings.push(posting);
    for (const entry of input.entries) {
      const key = `${input.merchantId}\u0000${input.currency}\u0000${entry.account}`;
      const account = accounts.get(key) ?? {
        merchant_id: input.merchantId,
        currency: input.currency,
        kind: entry.account,
        delta: 0n,
      };
      account.delta += entry.amount;
      accounts.set(key, account);
      entries.push({
        id: newId('ledgerEntry'),
        posting_id: posting.id,
        merchant_id: input.merchantId,
        currency: input.currency,
        kind: entry.account,
        amount: String(entry.amount),
        created_at: input.at,
      });
    }
  }
  const ready = sql`(SELECT ok FROM ledger_ready)`;
  const ctes = sql`ledger_deltas AS (
    SELECT * FROM ${recordset(
      [...accounts.values()].map((account) => ({ ...account, delta: String(account.delta) })),
      'merchant_id text, currency text, kind text, delta bigint',
    )}
  ), ledger_locked AS (
    SELECT a.id, a.merchant_id, a.currency, a.kind FROM ledger_accounts a
    JOIN ledger_deltas d ON a.merchant_id = d.merchant_id AND a.currency = d.currency AND a.kind = d.kind
    ORDER BY a.id
    FOR UPDATE OF a
  ), ledger_ready AS (
    SELECT count(*) = ${accounts.size} AS ok FROM ledger_locked
  ), ledger_balances AS (
    UPDATE ledger_accounts a SET balance = a.balance + d.delta
    FROM ledger_locked l
    JOIN ledger_deltas d ON l.merchant_id = d.merchant_id AND l.currency = d.currency AND l.kind = d.kind
    WHERE a.id = l.id AND ${ready}
  ), ledger_new_postings AS (
    ${insertRecordsSql(ledgerPostings, postings, ready)}
  ), ledger_new_entries AS (
    INSERT INTO ledger_entries (id, posting_id, account_id, merchant_id, currency, amount, created_at)
    SELECT v.id, v.posting_id, l.id, v.merchant_id, v.currency, v.amount, v.created_at
    FROM ${recordset(
      entries,
      'id text, posting_id text, merchant_id text, currency text, kind text, amount bigint, created_at timestamptz',
    )}
    JOIN ledger_locked l ON l.merchant_id = v.merchant_id AND l.currency = v.currency AND l.kind = v.kind
    WHERE ${ready}
  )`;
  return { ctes, ready, postings, events: postings.map((posting) => postingEvent(posting, 'created')) };
}

type Common = Pick<PostingInput, 'merchantId' | 'currency' | 'source' | 'at' | 'description'>;

/** Funds a sandbox from the outside world. */
export function postTopUp(tx: Tx, input: Common & { amount: bigint }): Promise<PostingRow> {
  return post(tx, {
    ...input,
    type: 'top_up',
    entries: [
      { account: 'external', amount: -input.amount },
      { account: 'available', amount: input.amount },
    ],
  });
}

/** Money received but not yet available (a card payment before settlement). */
export function postPendingCredit(
  tx: Tx,
  input: Common & { amount: bigint; type: string; from: SystemAccount },
): Promise<PostingRow> {
  return post(tx, {
    ...input,
    entries: [
      { account: input.from, amount: -input.amount },
      { account: 'pending', amount: input.amount },
    ],
  });
}

/** Pending funds become available. */
export function postFundsAvailable(
  tx: Tx,
  input: Common & { amount: bigint; relatedId: string },
): Promise<PostingRow> {
  return post(tx, {
    ...input,
    type: 'funds_available',
    entries: [
      { account: 'pending', amount: -input.amount },
      { account: 'available', amount: input.amount },
    ],
  });
}

/**
 * Locks the ledgers of every merchant a transaction is about to move money for, together, before
 * it touches any of them: a closed-loop card payment posts on the acquirer's and the issuer's
 * ledgers, and two such payments with the roles swapped would otherwise take the two ledgers in
 * opposite orders and deadlock. Call it before the transaction's first posting (docs/concurrency.md).
 */
export async function lockLedgers(tx: Tx, merchantIds: readonly string[]): Promise<void> {
  await lockMerchantLedgers(tx, merchantIds);
}

/** Reserves available funds (a hold): posted later to its destination, or voided back. */
export function placeHold(
  tx: Tx,
  input: Common & { amount: bigint; type?: string; allowNegative?: readonly MerchantAccount[] },
): Promise<PostingRow> {
  return post(tx, {
    ...input,
    type: input.type ?? 'hold',
    state: 'pending',
    entries: [
      { account: 'available', amount: -input.amount },
      { account: 'reserved', amount: input.amount },
    ],
  });
}

async function loadHold(exec: Executor, merchantId: string, holdId: string): Promise<PostingRow> {
  const [hold] = await exec
    .select()
    .from(ledgerPostings)
    .where(and(eq(ledgerPostings.id, holdId), eq(ledgerPostings.merchantId, merchantId)));
  const isHold = hold !== undefined && hold.reservedDelta > 0n && hold.availableDelta === -hold.reservedDelta;
  if (!hold || !isHold) {
    throw new SandbankError('resource_not_found', { message: `No hold ${holdId.slice(0, 60)}.` });
  }
  return hold;
}

async function settleHold(
  tx: Tx,
  merchantId: string,
  holdId: string,
  event: 'post' | 'void',
  at: Date,
  destination: EntryInput['account'],
): Promise<PostingRow> {
  const hold = await loadHold(tx, merchantId, holdId);
  const to = transition(holdMachine, hold.state as never, event);
  const moved = await updateIfState(tx, ledgerPostings, hold.id, hold.state, { state: to, updatedAt: at });
  if (!moved) {
    // Another writer settled it between our read and our update: report the state it is in now.
    const current = await loadHold(tx, merchantId, holdId);
    throw invalidState(holdMachine, current.state as never, event);
  }
  await emitPostingEvent(tx, { ...hold, state: to, updatedAt: at }, to);
  const amount = hold.reservedDelta;
  return post(tx, {
    merchantId,
    currency: hold.currency as CurrencyCode,
    type: event === 'post' ? 'hold_posted' : 'hold_voided',
    source: { type: hold.sourceType, id: hold.sourceId },
    relatedId: hold.id,
    at,
    entries: [
      { account: 'reserved', amount: -amount },
      { account: destination, amount },
    ],
  });
}

/** Sends a hold's reserved funds to their destination (a bank rail, the card network, FX). */
export function postHold(
  tx: Tx,
  merchantId: string,
  holdId: string,
  at: Date,
  to: SystemAccount,
): Promise<PostingRow> {
  return settleHold(tx, merchantId, holdId, 'post', at, to);
}

/** Releases a hold's reserved funds back to available. */
export function voidHold(tx: Tx, merchantId: string, holdId: string, at: Date): Promise<PostingRow> {
  return settleHold(tx, merchantId, holdId, 'void', at, 'available');
}

/**
 * Postings that may be undone. Holds are voided instead, and the postings that settle a hold are
 * final (reversing one would put money back in `reserved` with no hold behind it).
 */
const REVERSIBLE = new Set(['top_up', 'collection_payment', 'funds_available']);

/** Undoes a posted posting, once, with a new one whose entries are its negation. */
export async function reversePosting(
  tx: Tx,
  merchantId: string,
  postingId: string,
  at: Date,
  options: { allowNegative?: readonly MerchantAccount[] } = {},
): Promise<PostingRow> {
  const [original] = await tx
    .select()
    .from(ledgerPostings)
    .where(and(eq(ledgerPostings.id, postingId), eq(ledgerPostings.merchantId, merchantId)));
  if (!original)
    throw new SandbankError('resource_not_found', {
      message: `No balance transaction ${postingId.slice(0, 60)}.`,
    });
  if (original.state !== 'posted' || !REVERSIBLE.has(original.type)) {
    throw new SandbankError('invalid_state', {
      message: `Only a posted ${[...REVERSIBLE].join(', ')} balance transaction can be reversed, once; this one is a ${original.state} ${original.type}.`,
    });
  }
  // posted → reversed with compare-and-set: of two racing reversals, one wins.
  const marked = await updateIfState(tx, ledgerPostings, original.id, 'posted', {
    state: 'reversed',
    updatedAt: at,
  });
  if (!marked) {
    throw new SandbankError('invalid_state', { message: 'This balance transaction has just been reversed.' });
  }
  await emitPostingEvent(tx, { ...original, state: 'reversed', updatedAt: at }, 'reversed');
  const entries = await tx
    .select({ amount: ledgerEntries.amount, kind: ledgerAccounts.kind })
    .from(ledgerEntries)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerEntries.accountId))
    .where(eq(ledgerEntries.postingId, original.id));
  return post(tx, {
    merchantId,
    currency: original.currency as CurrencyCode,
    type: 'reversal',
    source: { type: original.sourceType, id: original.sourceId },
    relatedId: original.id,
    at,
    entries: entries.map((entry) => ({ account: entry.kind as AccountKind, amount: -entry.amount })),
    ...(options.allowNegative ? { allowNegative: options.allowNegative } : {}),
  });
}
