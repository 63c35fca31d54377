import { eq, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { insertRecordsSql, type RecordCell, recordset } from '../../db/json-records.ts';
import { newId } from '../../kernel/ids.ts';
import { type EventInput, recordEvents } from '../events/events.service.ts';
import { type AccountKind, accountIdsOf, isMerchantAccount, lockMerchantLedgers } from './ledger.accounts.ts';
import {
  assertBalanced,
  type PostingInput,
  type PostingRow,
  postingEvent,
  postingValues,
} from './ledger.rows.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

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
