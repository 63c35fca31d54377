import { and, eq, type SQL, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/client.ts';
import { insertRecordsSql, recordset } from '../../db/json-records.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { createdEventsSql, fanOutCtes } from '../events/events.service.ts';
import {
  type AccountKind,
  accountIdsOf,
  accountKey,
  type HeldAccounts,
  heldLedgers,
  isMerchantAccount,
  type SystemAccount,
} from './ledger.accounts.ts';
import {
  assertBalanced,
  type Common,
  emitPostingEvent,
  type PostingInput,
  type PostingRow,
  postingEvent,
  postingValues,
} from './ledger.rows.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

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
