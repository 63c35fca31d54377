import { challengePageUrl, type RefundRow } from '../card-payments/card-payments.resource.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { renderCustomer } from './stripe.customers.rows.ts';
import { invalidParam } from './stripe.errors.ts';
import {
  chargeId,
  type IntentView,
  intentStatus,
  pendingPaymentMethod,
} from './stripe.payment-intents.read.ts';
import { isTestPaymentMethod, renderPaymentMethod, testPaymentMethod } from './stripe.payment-methods.ts';
import { renderMethod, savedView } from './stripe.saved-methods.ts';

/**
 * The Stripe dialect's objects in Stripe's shape: integer minor units, lowercase currencies, Unix
 * seconds, `object` names, `livemode: false`; fields Sandbank has no counterpart for are null.
 */

const seconds = (at: Date | null | undefined) => (at ? Math.floor(at.getTime() / 1000) : null);
const minor = (amount: bigint) => Number(amount);

/** What every rendering needs: where the hosted pages are, the merchant's clock, the expansions asked for. */
export interface RenderScope {
  publicUrl: string;
  now: Date;
  expand: ReadonlySet<string>;
}

/** A card payment's id from a charge id (`ch_X` → `cp_X`); null for an id that is not a charge's. */
export function cardPaymentIdOf(charge: string): string | null {
  return charge.startsWith('ch_') ? `cp_${charge.slice(3)}` : null;
}

/** The intent a card payment was made for: the dialect gives each attempt the intent's id as its reference. */
export function intentIdOf(payment: Pick<CardPaymentDetail, 'reference'>): string | null {
  return payment.reference?.startsWith('pi_') ? payment.reference : null;
}

function chargeStatus(payment: CardPaymentDetail): 'succeeded' | 'pending' | 'failed' {
  if (payment.state === 'declined') return 'failed';
  if (payment.state === 'requires_action') return 'pending';
  return 'succeeded';
}

export function renderRefund(refund: RefundRow, payment: Pick<CardPaymentDetail, 'reference' | 'id'>) {
  return {
    id: refund.id,
    object: 'refund',
    amount: minor(refund.amount),
    balance_transaction: null,
    charge: chargeId(payment.id),
    created: seconds(refund.createdAt),
    currency: refund.currency.toLowerCase(),
    failure_reason: refund.state === 'failed' ? 'unknown' : null,
    metadata: {},
    payment_intent: intentIdOf(payment),
    reason: refund.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: refund.state,
    transfer_reversal: null,
  };
}

export function renderCharge(
  payment: CardPaymentDetail,
  paymentMethod: string | null,
  customer: string | null = null,
) {
  const declined = payment.state === 'declined';
  const intent = intentIdOf(payment);
  return {
    id: chargeId(payment.id),
    object: 'charge',
    amount: minor(payment.amount),
    amount_captured: minor(payment.amountCaptured),
    // An authorization released uncaptured (voided, expired) reads as refunded in full, as Stripe's.
    amount_refunded: minor(released(payment) ? payment.amount : payment.amountRefunded),
    balance_transaction: null,
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: null,
      name: null,
      phone: null,
    },
    calculated_statement_descriptor: 'SANDBANK',
    captured: payment.amountCaptured > 0n,
    created: seconds(payment.createdAt),
    currency: payment.currency.toLowerCase(),
    customer,
    description: payment.description,
    disputed: payment.disputeId !== null,
    failure_code: declined ? 'card_declined' : null,
    failure_message: declined ? payment.failureMessage : null,
    livemode: false,
    metadata: payment.metadata,
    outcome: {
      network_status: declined ? 'declined_by_network' : 'approved_by_network',
      reason: declined ? (payment.declineCode ?? 'generic_decline') : null,
      risk_level: 'normal',
      seller_message: declined
        ? 'The bank did not return any further details with this decline.'
        : 'Payment complete.',
      type: declined ? 'issuer_declined' : 'authorized',
    },
    paid: !declined && payment.state !== 'requires_action',
    payment_intent: intent,
    payment_method: paymentMethod,
    payment_method_details: {
      type: 'card',
      card: {
        brand: payment.brand,
        country: 'US',
        exp_month: payment.expMonth,
        exp_year: payment.expYear,
        last4: payment.last4,
        network: payment.brand,
        network_transaction_id: null,
        three_d_secure: payment.threeDSecure
          ? {
              authentication_flow: 'challenge',
              result: payment.threeDSecure === 'succeeded' ? 'authenticated' : 'failed',
              version: '2.2.0',
            }
          : null,
      },
    },
    receipt_email: null,
    refunded: payment.state === 'refunded' || released(payment),
    refunds: {
      object: 'list',
      data: payment.refunds.map((refund) => renderRefund(refund, payment)),
      has_more: false,
      url: `/v1/charges/${chargeId(payment.id)}/refunds`,
    },
    status: chargeStatus(payment),
  };
}

const released = (payment: CardPaymentDetail) => payment.state === 'voided' || payment.state === 'expired';

function lastPaymentError(view: IntentView, scope: RenderScope) {
  const { payment, row } = view;
  if (payment?.state !== 'declined') return null;
  // A failed 3-D Secure challenge is Stripe's authentication failure, not the card's decline.
  const authentication = payment.threeDSecure === 'failed';
  return {
    type: 'card_error',
    code: authentication ? 'payment_intent_authentication_failure' : 'card_declined',
    ...(authentication ? {} : { decline_code: payment.declineCode ?? 'generic_decline' }),
    message: authentication
      ? 'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.'
      : (payment.failureMessage ?? 'Your card was declined.'),
    charge: chargeId(payment.id),
    payment_method: row.attemptPaymentMethod ? methodObject(row.attemptPaymentMethod, view, scope) : null,
  };
}

/**
 * An intent's payment method as an object: a test id's, or a saved one's (from the view's
 * `methods`); null for a saved one no longer there (its table was reset without the intents').
 */
function methodObject(id: string, view: IntentView, scope: RenderScope): Record<string, unknown> | null {
  if (isTestPaymentMethod(id))
    return renderPaymentMethod(testPaymentMethod(id, scope.now), view.row.createdAt);
  const saved = view.methods?.get(id);
  return saved ? renderMethod(savedView(saved)) : null;
}

/** An intent's customer: its id, or the customer when expanded (and found). */
function customerOf(view: IntentView, scope: RenderScope) {
  const id = view.row.customerId;
  if (!id || !scope.expand.has('customer') || !view.customer) return id;
  return renderCustomer(view.customer);
}

/** The expansions a PaymentIntent takes. */
export const INTENT_EXPANSIONS: readonly string[] = ['customer', 'latest_charge', 'payment_method'];

export function checkExpansions(expand: ReadonlySet<string>, allowed: readonly string[]): void {
  for (const path of expand)
    if (!allowed.includes(path))
      throw invalidParam(
        'expand',
        `This property cannot be expanded (${path}). Sandbank's Stripe dialect expands: ${allowed.join(', ') || 'nothing here'}.`,
      );
}

export function renderIntent(view: IntentView, scope: RenderScope) {
  const { row, payment } = view;
  const status = intentStatus(view);
  const method =
    status === 'requires_payment_method' ? null : (pendingPaymentMethod(view) ?? row.attemptPaymentMethod);
  return {
    id: row.id,
    object: 'payment_intent',
    amount: minor(row.amount),
    amount_capturable: payment?.state === 'authorized' ? minor(payment.amount) : 0,
    amount_details: { tip: {} },
    amount_received: payment ? minor(payment.amountCaptured) : 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: seconds(row.canceledAt ?? (payment && released(payment) ? payment.updatedAt : null)),
    // An authorization left to expire is canceled by Stripe itself ('automatic').
    cancellation_reason: row.cancellationReason ?? (payment?.state === 'expired' ? 'automatic' : null),
    capture_method: row.captureMethod,
    client_secret: row.clientSecret,
    confirmation_method: 'automatic',
    created: seconds(row.createdAt),
    currency: row.currency,
    customer: customerOf(view, scope),
    description: row.description,
    last_payment_error: lastPaymentError(view, scope),
    latest_charge: payment
      ? scope.expand.has('latest_charge')
        ? renderCharge(payment, row.attemptPaymentMethod, row.customerId)
        : chargeId(payment.id)
      : null,
    livemode: false,
    metadata: row.metadata,
    next_action:
      status === 'requires_action' && payment
        ? {
            type: 'redirect_to_url',
            redirect_to_url: { url: challengePageUrl(scope.publicUrl, payment), return_url: row.returnUrl },
          }
        : null,
    on_behalf_of: null,
    payment_method:
      method && scope.expand.has('payment_method') ? (methodObject(method, view, scope) ?? method) : method,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    processing: null,
    receipt_email: row.receiptEmail,
    review: null,
    setup_future_usage: view.setupFutureUsage ?? null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status,
    transfer_data: null,
    transfer_group: null,
  };
}
