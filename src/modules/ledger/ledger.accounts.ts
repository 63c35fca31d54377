import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { newId } from '../../kernel/ids.ts';
import { ledgerAccounts } from './ledger.table.ts';

export const MERCHANT_ACCOUNTS = ['available', 'pending', 'reserved'] as const;
export const SYSTEM_ACCOUNTS = ['external', 'card_network', 'bank_rails', 'fx_liquidity'] as const;
export type MerchantAccount = (typeof MERCHANT_ACCOUNTS)[number];
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];
export type AccountKind = MerchantAccount | SystemAccount;

/** Every kind, in the order a ledger's missing accounts are inserted in. */
const ACCOUNT_KINDS: readonly AccountKind[] = [...MERCHANT_ACCOUNTS, ...SYSTEM_ACCOUNTS].sort();

/** A merchant's accounts a transaction holds locked: `currency:kind` → account id. */
export type HeldAccounts = Map<string, string>;

export const accountKey = (currency: string, kind: string) => `${currency}:${kind}`;

/**
 * Per transaction, the merchants whose ledger accounts it has locked, with their ids. Keyed by the
 * transaction object: a savepoint is an object of its own, so what it locked or created is not
 * remembered past it (rolled back, its locks and rows are gone; released, its parent asks again
 * and is answered at once, holding the locks already).
 */
export const heldLedgers = new WeakMap<Tx, Map<string, HeldAccounts>>();

/**
 * Locks every ledger account of these merchants — all currencies, all kinds — that the transaction
 * does not hold yet, in one statement, in account-id order. This is the lock order of
 * docs/internals/concurrency.md: a transaction takes a merchant's ledger whole, the first time it touches
 * it, and a transaction that moves money for several merchants takes all of theirs at once. Row
 * locks acquired in one global order cannot form a cycle, so no two postings deadlock; and since
 * anyone touching a merchant's ledger first waits here, a posting that creates a missing account
 * below never waits on a concurrent creator that holds one of its locks. `FOR NO KEY UPDATE` is the
 * lock an UPDATE of the balance takes, so inserting entries that reference the accounts is not blocked.
 */
export async function lockMerchantLedgers(
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
export async function accountIdsOf(
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

export function isMerchantAccount(kind: AccountKind): kind is MerchantAccount {
  return (MERCHANT_ACCOUNTS as readonly string[]).includes(kind);
}

/**
 * Locks the ledgers of every merchant a transaction is about to move money for, together, before
 * it touches any of them: a closed-loop card payment posts on the acquirer's and the issuer's
 * ledgers, and two such payments with the roles swapped would otherwise take the two ledgers in
 * opposite orders and deadlock. Call it before the transaction's first posting (docs/internals/concurrency.md).
 */
export async function lockLedgers(tx: Tx, merchantIds: readonly string[]): Promise<void> {
  await lockMerchantLedgers(tx, merchantIds);
}
