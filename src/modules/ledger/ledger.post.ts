import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/client.ts';
import type { EffectKind } from '../../db/commit.ts';
import { createdEventsCte, fanOut, recordEvent } from '../../db/outbox.ts';
import { SandbankError } from '../../kernel/errors.ts';
import {
  type AccountKind,
  accountIdsOf,
  accountKey,
  type HeldAccounts,
  heldLedgers,
  lockLedgers,
  type SystemAccount,
} from './ledger.accounts.ts';
import { type Common, type PostingInput, type PostingRow, postingEvent } from './ledger.rows.ts';
import { isGuarded, type PreparedPosting, postingsStatement, preparePosting } from './ledger.statement.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

/**
 * The only writer of money. Applies balanced entries to their accounts with
 * `UPDATE … SET balance = balance + $amount`, on accounts the transaction holds locked (the
 * merchant's whole ledger, in the global lock order of docs/internals/concurrency.md), so concurrent postings
 * cannot deadlock and no update is lost. A debit of a merchant account is guarded against overdraft
 * (`balance + $amount >= 0`, on the balance read under the lock): of two debits racing for the same
 * funds, the second sees the first's result and fails cleanly with insufficient_balance.
 *
 * One statement does it all when the merchant's accounts in this currency exist (postingsStatement):
 * lock, check, update, insert the posting and its entries, write its event. A currency's first
 * posting takes the step-by-step path, which creates the accounts.
 */
export function post(tx: Tx, input: PostingInput): Promise<PostingRow> {
  return postPrepared(tx, preparePosting(input));
}

/** post() of a posting prepared beforehand (its ids fixed), e.g. as part of a change. */
export async function postPrepared(tx: Tx, posting: PreparedPosting): Promise<PostingRow> {
  const { input } = posting;
  const statement = postingsStatement([posting]);
  const createdEvents = createdEventsCte([postingEvent(posting.row, 'created')], statement.ready);
  const [result] = await queryRows<PostOneResult>(
    tx,
    sql`WITH ${statement.checks}, ${statement.writes(statement.ready)}, ${createdEvents.cte},
    ${fanOut(sql.raw('created_events'))}
    SELECT
      (SELECT coalesce(json_agg(json_build_object('id', l.id, 'currency', l.currency, 'kind', l.kind)), '[]'::json) FROM ledger_locked l) AS locked,
      (SELECT ready FROM ledger_check) AS ready,
      (SELECT short FROM ledger_check) AS short,
      (SELECT count(*) FROM announced) AS announced`,
  );
  const locked = result?.locked ?? [];
  const held = heldLedgers.get(tx) ?? new Map<string, HeldAccounts>();
  heldLedgers.set(tx, held);
  held.set(input.merchantId, new Map(locked.map((row) => [accountKey(row.currency, row.kind), row.id])));
  if (result?.ready) {
    if (result.short) throw insufficientBalance(result.short, input.currency);
    return posting.row;
  }
  return postStepwise(tx, posting);
}

/** Ledger postings as part of a change handed to commit() (src/db/commit.ts). */
export const ledgerPostingsEffect: EffectKind<PreparedPosting> = {
  statement: postingsStatement,
  eventsOf: (posting) => [postingEvent(posting.row, 'created')],
  lockAll: lockAndCreateLedgers,
  apply: async (tx, posting) => {
    await postPrepared(tx, posting);
  },
};

/**
 * Before a batch's postings are written one by one in a transaction: every merchant's ledger
 * locked at once (the lock order of docs/internals/concurrency.md), then the accounts missing for each
 * (merchant, currency) created in one sorted order. Two such batches that name the same new
 * merchants in opposite orders would otherwise each create one merchant's accounts and wait on the
 * other's uncommitted rows.
 */
async function lockAndCreateLedgers(tx: Tx, postings: readonly PreparedPosting[]): Promise<void> {
  await lockLedgers(
    tx,
    postings.map(({ input }) => input.merchantId),
  );
  const ledgers = new Map(postings.map(({ input }) => [`${input.merchantId}\u0000${input.currency}`, input]));
  for (const key of [...ledgers.keys()].sort()) {
    const input = ledgers.get(key) as PostingInput;
    await accountIdsOf(tx, input.merchantId, input.currency, [], input.at);
  }
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
 * post() in steps, for a posting that needs accounts created first: lock the ledger, create the
 * missing accounts, then update each balance (guarded debits with `… WHERE balance + $amount >= 0`),
 * insert the posting and its entries, and write its event.
 */
async function postStepwise(tx: Tx, { input, row, entryIds }: PreparedPosting): Promise<PostingRow> {
  const ids = await accountIdsOf(
    tx,
    input.merchantId,
    input.currency,
    input.entries.map((entry) => entry.account),
    input.at,
  );
  const resolved = input.entries.map((entry, i) => ({
    ...entry,
    id: entryIds[i] as string,
    accountId: ids.get(entry.account)!,
  }));
  resolved.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
  for (const entry of resolved) {
    const where = isGuarded(input, entry)
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
  const [posting] = await tx.insert(ledgerPostings).values(row).returning();
  if (!posting) throw new Error('posting insert returned no row');
  await tx.insert(ledgerEntries).values(
    resolved.map((entry) => ({
      id: entry.id,
      postingId: posting.id,
      accountId: entry.accountId,
      merchantId: input.merchantId,
      currency: input.currency,
      amount: entry.amount,
      createdAt: input.at,
    })),
  );
  await recordEvent(tx, postingEvent(posting, 'created'));
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
