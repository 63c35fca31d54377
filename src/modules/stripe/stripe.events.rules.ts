import { type SQL, sql } from 'drizzle-orm';
import { events } from '../../db/events.table.ts';
import { stripeCheckoutSessions, stripeEvents } from './stripe.objects.table.ts';
import { stripePaymentIntents } from './stripe.table.ts';

/**
 * Which of Stripe's events a native event becomes: the rules, written once and read two ways — by
 * the projection, on the native event's object (stripe.events.project.ts), and as SQL, to find the
 * native events whose Stripe events are not written yet (catchUpQuery). Each rule makes at most one
 * event of a native event, under the id `evt_<the native id's 26 characters><letter>`; a native
 * event's rules have distinct letters, so the same native event always makes the same ids.
 */

export type StripeEventRow = typeof stripeEvents.$inferSelect;

/** The API version the dialect's events are rendered in (the version the dialect answers by default). */
export const STRIPE_EVENT_API_VERSION = '2025-10-29.clover';

/** What a rule's event must hold for it to apply (all of them). */
export type Condition =
  /** The card payment is a PaymentIntent's attempt (its reference names one of the merchant's). */
  | 'intent'
  /** Authorized to be captured later (`capture: false`), or captured at once. */
  | 'manual'
  | 'automatic'
  /** The collection is a Checkout Session's. */
  | 'session';

/** What a rule's `data.object` is. */
export type Rendering = 'intent' | 'charge' | 'refund' | 'refunded_charge' | 'dispute' | 'session';

export interface Rule {
  native: string;
  letter: 'p' | 'c' | 'r' | 'd' | 's';
  when: readonly Condition[];
  /** Its Stripe type; a dispute's picks one of several by the dispute (stripe.events.project.ts). */
  types: readonly string[];
  render: Rendering;
}

const DISPUTE_OPENED = ['charge.dispute.created', 'charge.dispute.updated'] as const;
const disputeRules: Rule[] = [
  ['needs_response', DISPUTE_OPENED],
  ['warning_needs_response', DISPUTE_OPENED],
  ['under_review', ['charge.dispute.updated']],
  ['warning_under_review', ['charge.dispute.updated']],
  ['won', ['charge.dispute.closed']],
  ['lost', ['charge.dispute.closed']],
  ['warning_closed', ['charge.dispute.closed']],
].map(([state, types]) => ({
  native: `dispute.${state as string}`,
  letter: 'd',
  when: [],
  types: types as readonly string[],
  render: 'dispute',
}));

export const RULES: readonly Rule[] = [
  rule('card_payment.requires_action', 'p', ['intent'], 'payment_intent.requires_action', 'intent'),
  rule(
    'card_payment.authorized',
    'p',
    ['intent', 'manual'],
    'payment_intent.amount_capturable_updated',
    'intent',
  ),
  rule('card_payment.authorized', 'c', ['manual'], 'charge.succeeded', 'charge'),
  rule('card_payment.captured', 'p', ['intent'], 'payment_intent.succeeded', 'intent'),
  rule('card_payment.captured', 'c', ['automatic'], 'charge.succeeded', 'charge'),
  rule('card_payment.captured', 'c', ['manual'], 'charge.captured', 'charge'),
  rule('card_payment.declined', 'p', ['intent'], 'payment_intent.payment_failed', 'intent'),
  rule('card_payment.declined', 'c', [], 'charge.failed', 'charge'),
  rule('card_payment.voided', 'p', ['intent'], 'payment_intent.canceled', 'intent'),
  rule('card_payment.expired', 'p', ['intent'], 'payment_intent.canceled', 'intent'),
  rule('card_payment.expired', 'c', [], 'charge.expired', 'charge'),
  rule('refund.pending', 'r', [], 'refund.created', 'refund'),
  rule('refund.pending', 'c', [], 'charge.refunded', 'refunded_charge'),
  rule('refund.succeeded', 'r', [], 'refund.updated', 'refund'),
  rule('refund.failed', 'r', [], 'refund.updated', 'refund'),
  ...disputeRules,
  rule('collection.succeeded', 's', ['session'], 'checkout.session.completed', 'session'),
];

function rule(
  native: string,
  letter: Rule['letter'],
  when: Condition[],
  type: string,
  render: Rendering,
): Rule {
  return { native, letter, when, types: [type], render };
}

/** The letters of a PaymentIntent's own events, which no native event stands for (stripe.events.ts). */
export const CREATED_LETTER = 'n';
export const CANCELED_LETTER = 'x';

/** The Stripe event a rule makes of native event `nativeId` (`evt_…`): its id. */
export function stripeEventId(nativeId: string, letter: string): string {
  return `evt_${nativeId.slice(4)}${letter}`;
}

/** By native type, the Stripe types its events may be (what the webhook fan-out filters endpoints by). */
export function candidates(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of RULES) out[r.native] = [...new Set([...(out[r.native] ?? []), ...r.types])];
  return out;
}

/** Every Stripe event type the dialect sends (what an endpoint may subscribe to, besides "*"). */
export function stripeEventTypes(): string[] {
  return [...new Set(['payment_intent.created', ...RULES.flatMap((r) => r.types)])].sort();
}

/** A condition as SQL over the events table's row. */
function conditionSql(condition: Condition): SQL {
  switch (condition) {
    case 'intent':
      return sql`EXISTS (SELECT 1 FROM ${stripePaymentIntents} WHERE ${stripePaymentIntents.id} = ${events.data} #>> '{object,reference}' AND ${stripePaymentIntents.merchantId} = ${events.merchantId})`;
    case 'manual':
      return sql`(${events.data} #>> '{object,capture}') = 'false'`;
    case 'automatic':
      return sql`(${events.data} #>> '{object,capture}') = 'true'`;
    case 'session':
      return sql`EXISTS (SELECT 1 FROM ${stripeCheckoutSessions} WHERE ${stripeCheckoutSessions.collectionId} = ${events.objectId} AND ${stripeCheckoutSessions.merchantId} = ${events.merchantId})`;
  }
}

/**
 * The native events (a row of `events`) with a rule that applies and whose event is not written
 * yet: those a read of the Stripe events writes first.
 */
export function unprojected(): SQL {
  const terms = RULES.map(
    (r) =>
      sql`(${events.type} = ${r.native} ${sql.join(
        r.when.map((c) => sql` AND ${conditionSql(c)}`),
        sql``,
      )} AND NOT EXISTS (SELECT 1 FROM ${stripeEvents} WHERE ${stripeEvents.id} = 'evt_' || substr(${events.id}, 5) || ${r.letter}))`,
  );
  return sql`(${sql.join(terms, sql` OR `)})`;
}

/** The native types some rule reads. */
export const NATIVE_TYPES: readonly string[] = [...new Set(RULES.map((r) => r.native))];
