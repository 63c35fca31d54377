import type { TransferRow } from '../transfers/transfers.resource.ts';
import { txnId } from './stripe.balance-render.ts';

/**
 * A native payout (`po_`) as Stripe's Payout. Its status follows the rail: pending until the ACH
 * window submits it, in_transit until it settles, then paid; one the bank sends back is failed
 * (Stripe's payouts go from paid to failed the same way), one canceled before its window canceled.
 */

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** The Stripe `method` of a native rail: the instant rails (RTP, FedNow) are `instant`. */
export const methodOf = (rail: string): 'standard' | 'instant' =>
  rail === 'rtp' || rail === 'fednow' ? 'instant' : 'standard';

/** Stripe's payout statuses, by native payout state. */
const STATUS: Readonly<Record<string, string>> = {
  pending: 'pending',
  in_transit: 'in_transit',
  paid: 'paid',
  failed: 'failed',
  returned: 'failed',
  canceled: 'canceled',
  // The return was dishonored: the payout's effect applies again; contested: returned for good.
  return_dishonored: 'paid',
  return_contested: 'failed',
};

/** The native states of each Stripe status (the list's `status` filter). */
export function statesOfStatus(status: string): string[] {
  return Object.entries(STATUS).flatMap(([state, mapped]) => (mapped === status ? [state] : []));
}

/** Stripe's failure codes, by Nacha return code (ACH) and ISO 20022 reason (RTP, FedNow, Fedwire). */
const FAILURE_CODES: Readonly<Record<string, string>> = {
  R01: 'insufficient_funds',
  R02: 'account_closed',
  R03: 'no_account',
  R04: 'invalid_account_number',
  R16: 'account_frozen',
  R20: 'bank_account_restricted',
  R29: 'debit_not_authorized',
  AC03: 'invalid_account_number',
  AC04: 'account_closed',
};

function failureOf(row: TransferRow): { code: string; message: string } | null {
  if (STATUS[row.state] !== 'failed') return null;
  const code = row.returnCode ?? row.outcomeCode;
  return {
    code: (code && FAILURE_CODES[code]) ?? 'could_not_process',
    message: row.returnReason
      ? `${row.returnCode}: ${row.returnReason}`
      : (row.failureReason ?? 'The bank could not process this payout.'),
  };
}

/** A payout with the balance transaction that gave its funds back, when one did (failed or canceled). */
export interface PayoutView {
  row: TransferRow;
  failureTransaction: string | null;
}

export function renderPayout({ row, failureTransaction }: PayoutView) {
  const failure = failureOf(row);
  const status = STATUS[row.state] ?? row.state;
  return {
    id: row.id,
    object: 'payout',
    amount: Number(row.amount),
    application_fee: null,
    application_fee_amount: null,
    arrival_date: seconds(row.settledAt ?? row.expectedSettlementAt ?? row.createdAt),
    automatic: false,
    balance_transaction: row.holdId ? txnId(row.holdId) : null,
    created: seconds(row.createdAt),
    currency: row.currency.toLowerCase(),
    description: row.description,
    destination: row.counterpartyId,
    failure_balance_transaction: failureTransaction,
    failure_code: failure?.code ?? null,
    failure_message: failure?.message ?? null,
    livemode: false,
    metadata: row.metadata,
    method: methodOf(row.rail),
    original_payout: null,
    payout_method: null,
    reconciliation_status: status === 'paid' ? 'completed' : 'not_applicable',
    reversed_by: null,
    source_type: 'card',
    statement_descriptor: null,
    status,
    // A wire's IMAD is its trace; ACH and the instant rails keep none.
    trace_id: row.imad ? { status: 'supported', value: row.imad } : { status: 'unsupported', value: null },
    type: 'bank_account',
  };
}
