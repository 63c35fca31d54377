import { type SQL, sql } from 'drizzle-orm';
import { insertRecords, type RecordCell, recordset } from '../../db/json-records.ts';
import { newId } from '../../kernel/ids.ts';
import { isMerchantAccount } from './ledger.accounts.ts';
import { assertBalanced, type PostingInput, type PostingRow, postingValues } from './ledger.rows.ts';
import { ledgerPostings } from './ledger.table.ts';

/**
 * A posting ready to write: checked to balance, with its row and its entries' ids fixed up front,
 * so that whichever path writes it (one statement, or step by step) writes the same ids, and
 * whatever refers to it (the job that releases a pending credit) can be built beside it.
 */
export interface PreparedPosting {
  input: PostingInput;
  row: PostingRow;
  entryIds: string[];
}

export function preparePosting(input: PostingInput): PreparedPosting {
  assertBalanced(input.entries);
  return {
    input,
    row: postingValues(input, newId('posting')) as PostingRow,
    entryIds: input.entries.map(() => newId('ledgerEntry')),
  };
}

/** Whether an entry debits a merchant account that its posting may not take below zero. */
export function isGuarded(input: PostingInput, entry: PostingInput['entries'][number]): boolean {
  return (
    entry.amount < 0n && isMerchantAccount(entry.account) && !input.allowNegative?.includes(entry.account)
  );
}

interface Target {
  merchant_id: string;
  currency: string;
  kind: string;
  delta: bigint;
  /** The lowest the balance goes below its starting point at a guarded debit (null: none). */
  low: bigint | null;
}

/**
 * Postings as parts of one SQL statement: the CTEs that lock and check (`checks`), whether the
 * statement can write (`ready`), and the CTEs that write when a condition holds (`writes`).
 *
 * It locks the whole ledger of every merchant involved — every account, all currencies, in
 * account-id order: the lock order of docs/internals/concurrency.md, the same lock lockMerchantLedgers
 * takes — and reads the balances it locked. Per account it applies the postings' net change once;
 * a guarded debit is checked where it happens, against the running balance as the entries apply in
 * order (`low`), as the step-by-step path checks each one. It is ready when every account the
 * postings touch exists and no guarded account would go below zero; `ledger_check.short` names the
 * first that would. Accounts are never created here: a statement cannot update a row it inserts.
 */
export function postingsStatement(postings: readonly PreparedPosting[]): {
  checks: SQL;
  ready: SQL;
  writes: (ok: SQL) => SQL;
} {
  const targets = new Map<string, Target>();
  const entries: Record<string, RecordCell>[] = [];
  for (const { input, row, entryIds } of postings) {
    input.entries.forEach((entry, i) => {
      const key = `${input.merchantId}\u0000${input.currency}\u0000${entry.account}`;
      const target = targets.get(key) ?? {
        merchant_id: input.merchantId,
        currency: input.currency,
        kind: entry.account,
        delta: 0n,
        low: null,
      };
      target.delta += entry.amount;
      if (isGuarded(input, entry) && (target.low === null || target.delta < target.low))
        target.low = target.delta;
      targets.set(key, target);
      entries.push({
        id: entryIds[i] as string,
        posting_id: row.id,
        merchant_id: input.merchantId,
        currency: input.currency,
        kind: entry.account,
        amount: entry.amount.toString(),
        created_at: input.at,
      });
    });
  }
  const merchants = [...new Set(postings.map(({ input }) => input.merchantId))];
  const targetRows = [...targets.values()].map((target) => ({
    ...target,
    delta: target.delta.toString(),
    low: target.low === null ? null : target.low.toString(),
  }));
  const checks = sql`ledger_locked AS (
    SELECT a.id, a.merchant_id, a.currency, a.kind, a.balance FROM ledger_accounts a
    WHERE a.merchant_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(merchants)}::jsonb))
    ORDER BY a.id
    FOR NO KEY UPDATE OF a
  ), ledger_targets AS (
    SELECT l.id, v.merchant_id, v.currency, v.kind, v.delta, v.low, l.balance
    FROM ${recordset(targetRows, 'merchant_id text, currency text, kind text, delta bigint, low bigint')}
    JOIN ledger_locked l ON l.merchant_id = v.merchant_id AND l.currency = v.currency AND l.kind = v.kind
  ), ledger_check AS (
    SELECT count(*) = ${targets.size} AS ready,
      (SELECT t.kind FROM ledger_targets t WHERE t.balance + t.low < 0 ORDER BY t.id LIMIT 1) AS short
    FROM ledger_targets
  )`;
  const writes = (ok: SQL) => sql`ledger_balances AS (
    UPDATE ledger_accounts a SET balance = a.balance + t.delta
    FROM ledger_targets t
    WHERE a.id = t.id AND ${ok}
  ), ledger_new_postings AS (
    ${insertRecords(
      ledgerPostings,
      postings.map(({ row }) => row),
      ok,
    )}
  ), ledger_new_entries AS (
    INSERT INTO ledger_entries (id, posting_id, account_id, merchant_id, currency, amount, created_at)
    SELECT v.id, v.posting_id, t.id, v.merchant_id, v.currency, v.amount, v.created_at
    FROM ${recordset(
      entries,
      'id text, posting_id text, merchant_id text, currency text, kind text, amount bigint, created_at timestamptz',
    )}
    JOIN ledger_targets t ON t.merchant_id = v.merchant_id AND t.currency = v.currency AND t.kind = v.kind
    WHERE ${ok}
  )`;
  return { checks, ready: sql`(SELECT ready AND short IS NULL FROM ledger_check)`, writes };
}
