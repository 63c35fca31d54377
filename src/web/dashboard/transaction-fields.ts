import { html } from 'hono/html';
import { networkResponseDescription } from '../../modules/cards/network-responses.ts';
import { checkoutUrl } from '../../modules/collections/collections.resource.ts';
import { mccName } from '../../modules/issuing/issuing.controls.ts';
import type { TransactionDetail, TransactionKind } from '../../modules/transactions/transactions.service.ts';
import {
  payoutArrivalAt,
  payoutInTransitAt,
  type TransferRow,
} from '../../modules/transfers/transfers.resource.ts';
import { bankWhen } from '../bank-time.ts';
import { nocList } from './counterparties.ts';
import { type Html, jsonBlock, money, objectLink, stateBadge } from './ui.ts';

/**
 * The fields of a transaction's detail page, kind by kind, in the order a person reads them (the
 * common ones, its kind's, then its metadata); and how each kind is named in a sentence.
 */

/** How a kind is named in a sentence ("the FX settlement is now paid"). */
export const KIND_NAMES: Record<TransactionKind, string> = {
  collection: 'collection',
  card_payment: 'card payment',
  transfer: 'transfer',
  payout: 'payout',
  issuing_authorization: 'issuing authorization',
  fx_conversion: 'FX conversion',
  fx_settlement: 'FX settlement',
};
export const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

type Rows = [string, unknown][];
type Variant<K extends TransactionKind> = Extract<TransactionDetail, { kind: K }>;

const joined = (...parts: (string | null | undefined)[]) => parts.filter(Boolean).join(': ') || null;

function networkResponse(code: string | null): string | null {
  return code ? `${code} (${networkResponseDescription(code) ?? 'unknown'})` : null;
}

function bankAccount(row: TransferRow): string {
  return `${row.counterpartyName} · routing ${row.routingNumber} · account ••••${row.accountLast4} (${row.accountType})`;
}

function refundsTable(tx: Variant<'card_payment'>): Html | null {
  const { refunds } = tx.row;
  if (refunds.length === 0) return null;
  return html`<ul data-testid="refunds">${refunds.map(
    (r) =>
      html`<li><span class="mono">${r.id}</span> ${stateBadge(r.state)} ${money(r.amount, r.currency)} ${r.reason ?? ''} ${r.failureReason ?? ''} ${bankWhen(r.createdAt)}</li>`,
  )}</ul>`;
}

/** When a collection's bank payment (an ACH debit) settled or is expected to, in bank time. */
function debitTiming(debit: Variant<'collection'>['row']['debits'][number]): Html | string {
  if (debit.settledAt) return html` · settled ${bankWhen(debit.settledAt)}`;
  if (debit.expectedSettlementAt && !debit.returnedAt && debit.state !== 'failed')
    return html` · settles ${bankWhen(debit.expectedSettlementAt)}`;
  return '';
}

function collectionPayments(tx: Variant<'collection'>): Html | null {
  const { cardPayments, debits } = tx.row;
  if (cardPayments.length + debits.length === 0) return null;
  const item = (p: { id: string; state: string; amount: bigint; currency: string }, timing: Html | string) =>
    html`<li>${objectLink(p.id)} ${stateBadge(p.state, p.id)} ${money(p.amount, p.currency)}${timing}</li>`;
  return html`<ul data-testid="payments">${cardPayments.map((p) => item(p, ''))}${debits.map((d) => item(d, debitTiming(d)))}</ul>`;
}

function collectionRows(tx: Variant<'collection'>, publicUrl: string): Rows {
  const r = tx.row;
  return [
    [
      'Checkout',
      html`<a href="${checkoutUrl(publicUrl, r)}" target="_blank" rel="noopener" data-testid="checkout-link">Open the checkout page ↗</a>`,
    ],
    ['Payer email', r.email],
    ['Redirect URL', r.redirectUrl],
    ['Expires', bankWhen(r.expiresAt)],
    ['Failure', joined(r.failureCode, r.failureMessage)],
    ['Payments', collectionPayments(tx)],
  ];
}

/** Its latest dispute, and (captured, something neither refunded nor disputed) the link that simulates one. */
function disputeCell(r: Variant<'card_payment'>['row']): Html | null {
  const latest = r.disputeId
    ? html`<span data-testid="payment-dispute">${objectLink(r.disputeId)}</span>`
    : null;
  const open =
    (r.state === 'captured' || r.state === 'partially_refunded') &&
    r.amountCaptured - r.amountRefunded - r.amountDisputed > 0n;
  if (!open) return latest;
  const link = html`<a href="/dashboard/disputes/new?card_payment=${encodeURIComponent(r.id)}" data-testid="simulate-dispute-link">Simulate a${latest ? 'nother' : ''} dispute →</a>`;
  return latest ? html`${latest} · ${link}` : link;
}

function cardPaymentRows(tx: Variant<'card_payment'>): Rows {
  const r = tx.row;
  return [
    ['Card', `${r.brand} •••• ${r.last4} · exp ${r.expMonth}/${r.expYear}`],
    ['Captured', money(r.amountCaptured, r.currency)],
    ['Refunded', money(r.amountRefunded, r.currency)],
    ['3-D Secure', r.threeDSecure],
    ['Network response', networkResponse(r.networkResponseCode)],
    ['Decline', joined(r.declineCode, r.failureMessage)],
    ['Authorization expires', r.authorizationExpiresAt && bankWhen(r.authorizationExpiresAt)],
    ['Collection', r.collectionId && objectLink(r.collectionId)],
    ['Refunds', refundsTable(tx)],
    ['Dispute', disputeCell(r)],
    [
      'Early fraud warning',
      r.earlyFraudWarningAt &&
        html`<span data-testid="early-fraud-warning">unauthorized use of card · ${bankWhen(r.earlyFraudWarningAt)}</span>`,
    ],
  ];
}

function transferRows(r: Variant<'transfer'>['row']): Rows {
  return [
    ['Rail', `${r.rail} ${r.direction}`],
    ['Counterparty', bankAccount(r)],
    ['SEC code', r.secCode],
    ['Expected submission', r.expectedSubmissionAt && bankWhen(r.expectedSubmissionAt)],
    ['Submitted', r.submittedAt && bankWhen(r.submittedAt)],
    ['Expected settlement', r.expectedSettlementAt && bankWhen(r.expectedSettlementAt)],
    ['Settled', r.settledAt && bankWhen(r.settledAt)],
    ['Returned', r.returnedAt && bankWhen(r.returnedAt)],
    ['Return', joined(r.returnCode, r.returnReason)],
    ['Return untimely', r.returnUntimely ? 'yes: arrived after its time frame' : null],
    ['Dishonored', r.dishonoredAt && bankWhen(r.dishonoredAt)],
    ['Dishonor', joined(r.dishonorCode, r.dishonorReason)],
    ['Contested', r.contestedAt && bankWhen(r.contestedAt)],
    ['Contest', joined(r.contestCode, r.contestReason)],
    ['Failure', r.failureReason],
    ['Collection', r.collectionId && objectLink(r.collectionId)],
    ['Saved counterparty', r.counterpartyId && objectLink(r.counterpartyId)],
    ['Notification of change', r.notificationsOfChange.length ? nocList(r.notificationsOfChange) : null],
    [
      'Written statement of unauthorized debit',
      r.wsud
        ? `${r.wsud.receiver_name} (••••${r.wsud.account_number_last4}) signed ${r.wsud.signed_on}: ${r.wsud.reason} ${
            r.wsud.copy_provided_at
              ? `Copy sent ${bankWhen(new Date(r.wsud.copy_provided_at))}.`
              : `A copy may be requested until ${bankWhen(new Date(r.wsud.copy_request_by))}.`
          }`
        : null,
    ],
  ];
}

function payoutRows(r: Variant<'payout'>['row']): Rows {
  const inTransit = payoutInTransitAt(r);
  const arrival = payoutArrivalAt(r);
  return [
    ['Method', r.rail],
    ['Destination', bankAccount(r)],
    ['Expected submission', r.expectedSubmissionAt && bankWhen(r.expectedSubmissionAt)],
    ['In transit', inTransit && bankWhen(inTransit)],
    ['Arrival', arrival && bankWhen(arrival)],
    ['Paid', r.settledAt && bankWhen(r.settledAt)],
    ['Returned', r.returnedAt && bankWhen(r.returnedAt)],
    ['Failure', joined(r.returnCode ?? r.outcomeCode, r.returnReason ?? r.failureReason)],
    ['Return untimely', r.returnUntimely ? 'yes: arrived after its time frame' : null],
    ['Dishonored', r.dishonoredAt && bankWhen(r.dishonoredAt)],
    ['Dishonor', joined(r.dishonorCode, r.dishonorReason)],
    ['Contested', r.contestedAt && bankWhen(r.contestedAt)],
    ['Contest', joined(r.contestCode, r.contestReason)],
  ];
}

function authorizationRows(r: Variant<'issuing_authorization'>['row']): Rows {
  return [
    ['Virtual card', objectLink(r.cardId)],
    [
      'Merchant',
      `${r.merchantName} · MCC ${r.merchantMcc} (${mccName(r.merchantMcc) ?? 'other'}) · ${r.merchantCountry}`,
    ],
    ['Reversed', money(r.amountReversed, r.currency)],
    ['Captured', money(r.amountCaptured, r.currency)],
    ['Refunded', money(r.amountRefunded, r.currency)],
    ['Decline', joined(r.declineReason, r.declineInterval)],
    ['Network response', networkResponse(r.networkResponseCode)],
    ['Card payment', r.cardPaymentId && objectLink(r.cardPaymentId)],
    ['Expires', r.expiresAt && bankWhen(r.expiresAt)],
  ];
}

function conversionRows(r: Variant<'fx_conversion'>['row']): Rows {
  return [
    ['Quote', objectLink(r.quoteId)],
    ['Converted to', money(r.targetAmount, r.targetCurrency)],
    ['Rate', r.rate],
    ['Fee', money(r.fee, r.currency)],
  ];
}

function settlementRows(r: Variant<'fx_settlement'>['row']): Rows {
  const source = r.sourceCurrency ?? 'USD';
  return [
    ['Funding', r.quoteId ? html`conversion, quote ${objectLink(r.quoteId)}` : 'balance'],
    ['Source', r.sourceAmount === null ? null : money(r.sourceAmount, source)],
    ['Rate', r.rate],
    ['Fee', r.fee === null ? null : money(r.fee, source)],
    ['Destination', jsonBlock(r.destination)],
    ['Expected paid', bankWhen(r.expectedPaidAt)],
    ['Converted', r.convertedAt && bankWhen(r.convertedAt)],
    ['Paid', r.paidAt && bankWhen(r.paidAt)],
    ['Failed', r.failedAt && bankWhen(r.failedAt)],
    ['Failure', joined(r.failureCode, r.failureReason)],
  ];
}

/** The fields only this kind has, in the order a person reads them. */
function kindRows(tx: TransactionDetail, publicUrl: string): Rows {
  switch (tx.kind) {
    case 'collection':
      return collectionRows(tx, publicUrl);
    case 'card_payment':
      return cardPaymentRows(tx);
    case 'transfer':
      return transferRows(tx.row);
    case 'payout':
      return payoutRows(tx.row);
    case 'issuing_authorization':
      return authorizationRows(tx.row);
    case 'fx_conversion':
      return conversionRows(tx.row);
    case 'fx_settlement':
      return settlementRows(tx.row);
  }
}

/** The fields of a transaction of any kind: the common ones, its kind's, then its metadata. */
export function summaryRows(tx: TransactionDetail, publicUrl: string): Rows {
  const r = tx.row;
  return [
    ['Id', html`<code data-testid="transaction-id">${r.id}</code>`],
    ['Kind', KIND_NAMES[tx.kind]],
    ['State', stateBadge(r.state, r.id)],
    ['Amount', html`<span data-testid="amount">${money(r.amount, r.currency)}</span>`],
    ['Reference', html`<span data-testid="reference">${r.reference ?? ''}</span>`],
    [
      'Description',
      'description' in r ? html`<span data-testid="description">${r.description ?? ''}</span>` : null,
    ],
    ['Created (clock)', bankWhen(r.createdAt)],
    ['Updated (clock)', bankWhen(r.updatedAt)],
    ...kindRows(tx, publicUrl),
    ['Metadata', 'metadata' in r ? html`<div data-testid="metadata">${jsonBlock(r.metadata)}</div>` : null],
  ];
}
