import { type SQL, sql } from 'drizzle-orm';
import type { Balance } from '../ledger/ledger.queries.ts';
import type { PostingRow } from '../ledger/ledger.rows.ts';
import { transfers } from '../transfers/transfers.table.ts';

/**
 * The merchant's balances and ledger postings in Stripe's shape. Stripe's balance is what the
 * merchant holds, available or pending; the native `reserved` balance (funds held for a payout or
 * transfer under way) has already left it, as a payout's funds leave Stripe's balance when it is
 * created. So a posting is a balance transaction by its effect on available + pending, and one
 * that moves money only inside the merchant's balances (pending funds becoming available, a hold
 * sent on its way) is none: it changes the status of the one it follows from instead.
 */

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** A balance transaction's id: the posting's, under Stripe's prefix (`btx_X` ↔ `txn_X`). */
export const txnId = (postingId: string) => `txn_${postingId.slice(postingId.indexOf('_') + 1)}`;

/** The native posting types with one Stripe type each (any other posting is an `adjustment`). */
const BY_TYPE: Readonly<Record<string, string>> = {
  top_up: 'topup',
  card_payment: 'charge',
  refund: 'refund',
  payout: 'payout',
  payout_return: 'payout_failure',
  payout_return_dishonored: 'payout',
  transfer: 'transfer',
  transfer_return: 'transfer_failure',
  transfer_return_dishonored: 'transfer',
  issuing_authorization: 'issuing_authorization_hold',
  issuing_capture: 'issuing_transaction',
  issuing_refund: 'issuing_transaction',
  dispute_fee: 'stripe_fee',
};

/** A released hold (`hold_voided`), by what it held funds for; `failed`: when that object failed instead. */
const RELEASED: Readonly<Record<string, { type: string; failed?: { state: string; type: string } }>> = {
  payout: { type: 'payout_cancel', failed: { state: 'failed', type: 'payout_failure' } },
  transfer: { type: 'transfer_cancel', failed: { state: 'rejected', type: 'transfer_failure' } },
  issuing_authorization: { type: 'issuing_authorization_release' },
};

/** A reversal, by what the reversed posting came from. */
const REVERSED: Readonly<Record<string, string>> = { top_up: 'topup_reversal' };

/** Stripe's reporting categories: by native type first (a dispute is an adjustment), then by Stripe type. */
const CATEGORY_BY_NATIVE: Readonly<Record<string, string>> = {
  dispute: 'dispute',
  dispute_won: 'dispute_reversal',
  dispute_fee_returned: 'dispute_reversal',
  dispute_fee: 'fee',
};
const CATEGORY: Readonly<Record<string, string>> = {
  topup: 'topup',
  topup_reversal: 'topup_reversal',
  charge: 'charge',
  refund: 'refund',
  payout: 'payout',
  payout_cancel: 'payout_reversal',
  payout_failure: 'payout_reversal',
  transfer: 'transfer',
  transfer_cancel: 'transfer_reversal',
  transfer_failure: 'transfer_reversal',
  issuing_authorization_hold: 'issuing_authorization_hold',
  issuing_authorization_release: 'issuing_authorization_release',
  issuing_transaction: 'issuing_transaction',
};

/** Every type a balance transaction of the dialect can have. */
export const BALANCE_TRANSACTION_TYPES: readonly string[] = [
  ...new Set([
    ...Object.values(BY_TYPE),
    ...Object.values(RELEASED).flatMap((r) => (r.failed ? [r.type, r.failed.type] : [r.type])),
    ...Object.values(REVERSED),
    'adjustment',
  ]),
];

const literal = (text: string) => {
  if (!/^[a-z_]+$/.test(text)) throw new Error(`not a type name: ${text}`);
  return sql.raw(`'${text}'`);
};
const column = (name: string) => sql.raw(`"ledger_postings"."${name}"`);

/** A posting's Stripe type as SQL, over `ledger_postings` (what the list filters on and reads). */
export function stripeTypeSql(): SQL {
  const whens: SQL[] = [];
  for (const [source, released] of Object.entries(RELEASED)) {
    const type = released.failed
      ? sql`CASE WHEN EXISTS (SELECT 1 FROM ${transfers} t WHERE t.id = ${column('source_id')} AND t.state = ${literal(released.failed.state)}) THEN ${literal(released.failed.type)} ELSE ${literal(released.type)} END`
      : literal(released.type);
    whens.push(
      sql`WHEN ${column('type')} = 'hold_voided' AND ${column('source_type')} = ${literal(source)} THEN ${type}`,
    );
  }
  for (const [source, type] of Object.entries(REVERSED))
    whens.push(
      sql`WHEN ${column('type')} = 'reversal' AND ${column('source_type')} = ${literal(source)} THEN ${literal(type)}`,
    );
  for (const [native, type] of Object.entries(BY_TYPE))
    whens.push(sql`WHEN ${column('type')} = ${literal(native)} THEN ${literal(type)}`);
  return sql`(CASE ${sql.join(whens, sql` `)} ELSE 'adjustment' END)`;
}

/** A posting with what its rendering needs: its Stripe type, and when its pending funds became available. */
export interface BalanceTransactionView {
  row: PostingRow;
  type: string;
  /** A credit into pending: when a later posting made it available (null while it is pending). */
  releasedAt: Date | null;
}

/** Stripe's source of a posting: a charge for a card payment, none for a sandbox top-up, else the native id. */
function sourceOf(row: PostingRow): string | null {
  if (row.sourceType === 'top_up') return null;
  if (row.sourceType === 'card_payment') return `ch_${row.sourceId.slice(row.sourceId.indexOf('_') + 1)}`;
  return row.sourceId;
}

/** When a pending credit becomes available, for one not yet released: a card payment's settlement day. */
function availableOn(view: BalanceTransactionView, cardFundsAt: (paidAt: Date) => Date): Date {
  const { row } = view;
  if (row.pendingDelta <= 0n) return row.createdAt;
  if (view.releasedAt) return view.releasedAt;
  return row.type === 'card_payment' ? cardFundsAt(row.createdAt) : row.createdAt;
}

export function renderBalanceTransaction(view: BalanceTransactionView, cardFundsAt: (paidAt: Date) => Date) {
  const { row } = view;
  const amount = Number(row.availableDelta + row.pendingDelta);
  return {
    id: txnId(row.id),
    object: 'balance_transaction',
    amount,
    available_on: seconds(availableOn(view, cardFundsAt)),
    created: seconds(row.createdAt),
    currency: row.currency.toLowerCase(),
    description: row.description,
    exchange_rate: null,
    fee: 0,
    fee_details: [],
    net: amount,
    reporting_category: CATEGORY_BY_NATIVE[row.type] ?? CATEGORY[view.type] ?? 'other_adjustment',
    source: sourceOf(row),
    status: row.pendingDelta > 0n && view.releasedAt === null ? 'pending' : 'available',
    type: view.type,
  };
}

/** The merchant's balances, one entry per currency it holds, in the currency's minor unit. */
export function renderBalance(balances: readonly Balance[]) {
  const part = (pick: (balance: Balance) => bigint) =>
    balances.map((balance) => ({
      amount: Number(pick(balance)),
      currency: balance.currency.toLowerCase(),
      source_types: { card: Number(pick(balance)) },
    }));
  return {
    object: 'balance',
    available: part((balance) => balance.available),
    livemode: false,
    pending: part((balance) => balance.pending),
  };
}
