import { and, eq, gt, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { events } from '../../db/events.table.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { refundsOf } from '../card-payments/card-payments.rows.ts';
import { cardPayments } from '../card-payments/card-payments.table.ts';
import type { DisputeRow } from '../disputes/disputes.resource.ts';
import { disputes } from '../disputes/disputes.table.ts';
import { type EventRow, eventColumns } from '../events/events.service.ts';
import { type CheckoutSessionRow, renderCheckoutSession } from './stripe.checkout-render.ts';
import {
  type Condition,
  NATIVE_TYPES,
  RULES,
  type Rule,
  STRIPE_EVENT_API_VERSION,
  type StripeEventRow,
  stripeEventId,
  unprojected,
} from './stripe.events.rules.ts';
import {
  type DisputeSnapshot,
  disputeType,
  intentAsThen,
  type PaymentSnapshot,
  paymentAsThen,
  paymentAtRefund,
  type RefundSnapshot,
  refundOf,
  renderDispute,
} from './stripe.events.snapshot.ts';
import { stripeCheckoutSessions, stripeEvents } from './stripe.objects.table.ts';
import { renderCharge, renderIntent, renderRefund } from './stripe.render.ts';
import { type StripePaymentIntentRow, stripePaymentIntents } from './stripe.table.ts';

/**
 * The Stripe events of native events (stripe.events.rules.ts says which), written once: each is
 * rendered from the native event's object — the object as it was then — over its rows as they are
 * now (stripe.events.snapshot.ts), so that whenever it is written first (when a delivery of the
 * native event to a Stripe endpoint is leased, or when the merchant's Stripe events are read) it is
 * the same event. Written with ON CONFLICT DO NOTHING: the first writer's stands.
 */

type Snapshot = Record<string, unknown>;

/** What the rules of one native event read: its objects as they are now. */
interface Facts {
  event: EventRow;
  then: Snapshot;
  payment: CardPaymentDetail | null;
  intent: StripePaymentIntentRow | null;
  dispute: DisputeRow | null;
  session: CheckoutSessionRow | null;
}

async function paymentOf(exec: Executor, merchantId: string, id: string): Promise<CardPaymentDetail | null> {
  const [row] = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.id, id), eq(cardPayments.merchantId, merchantId)));
  if (!row) return null;
  return { ...row, refunds: (await refundsOf(exec, [row.id])).get(row.id) ?? [] };
}

async function intentOf(exec: Executor, merchantId: string, reference: string | null | undefined) {
  if (!reference?.startsWith('pi_')) return null;
  const [row] = await exec
    .select()
    .from(stripePaymentIntents)
    .where(and(eq(stripePaymentIntents.id, reference), eq(stripePaymentIntents.merchantId, merchantId)));
  return row ?? null;
}

/** The card payment a native event is about: its object, or the payment its refund or dispute is of. */
function paymentIdOf(event: EventRow, then: Snapshot): string | null {
  if (event.type.startsWith('card_payment.')) return event.objectId;
  return typeof then.card_payment === 'string' ? then.card_payment : null;
}

async function factsOf(exec: Executor, event: EventRow): Promise<Facts> {
  const then = (JSON.parse(event.dataJson) as { object: Snapshot }).object;
  const paymentId = paymentIdOf(event, then);
  const payment = paymentId ? await paymentOf(exec, event.merchantId, paymentId) : null;
  const intent = payment ? await intentOf(exec, event.merchantId, payment.reference) : null;
  const [dispute] = event.type.startsWith('dispute.')
    ? await exec
        .select()
        .from(disputes)
        .where(and(eq(disputes.id, event.objectId), eq(disputes.merchantId, event.merchantId)))
    : [];
  const [session] =
    event.type === 'collection.succeeded'
      ? await exec
          .select()
          .from(stripeCheckoutSessions)
          .where(
            and(
              eq(stripeCheckoutSessions.collectionId, event.objectId),
              eq(stripeCheckoutSessions.merchantId, event.merchantId),
            ),
          )
      : [];
  return { event, then, payment, intent, dispute: dispute ?? null, session: session ?? null };
}

/** A rule's conditions on the native event's objects (their SQL twins: stripe.events.rules.ts). */
const CONDITIONS: Record<Condition, (facts: Facts) => boolean> = {
  intent: (facts) => facts.intent !== null,
  manual: (facts) => facts.then.capture === false,
  automatic: (facts) => facts.then.capture === true,
  session: (facts) => facts.session !== null,
};

function holds(rule: Rule, facts: Facts): boolean {
  return rule.when.every((condition) => CONDITIONS[condition](facts));
}

const scopeAt = (at: Date) => ({ publicUrl: '', now: at, expand: new Set<string>() });

/** The payment method a charge was made with: its intent's, when it is the intent's latest attempt. */
const methodOf = (facts: Facts, payment: CardPaymentDetail) =>
  facts.intent?.cardPaymentId === payment.id ? facts.intent.attemptPaymentMethod : null;

function renderIntentThen(facts: Facts, payment: CardPaymentDetail, type: string) {
  const intent = facts.intent as StripePaymentIntentRow;
  const at = facts.event.createdAt;
  const row = intentAsThen(intent, payment, type === 'payment_intent.canceled', at);
  const rendered = renderIntent({ row, payment }, scopeAt(at));
  // The challenge page's address as the event gave it (the rendering above knows no public URL).
  const url = (facts.then as unknown as PaymentSnapshot).next_action?.url;
  if (!rendered.next_action || !url) return rendered;
  return {
    ...rendered,
    next_action: {
      ...rendered.next_action,
      redirect_to_url: { ...rendered.next_action.redirect_to_url, url },
    },
  };
}

/** A rule's event: its type, its object and what it changed (null: nothing to render it from). */
function renderRule(rule: Rule, facts: Facts): { type: string; object: unknown; previous?: unknown } | null {
  const type = rule.types[0] as string;
  const { payment, then } = facts;
  if (rule.render === 'session') {
    const session = facts.session as CheckoutSessionRow;
    const reference = typeof then.reference === 'string' ? then.reference : '';
    const row = {
      ...session,
      paymentIntentId: session.paymentIntentId ?? (reference.startsWith('pi_') ? reference : null),
    };
    const collection = {
      id: facts.event.objectId,
      state: 'succeeded' as const,
      expiresAt: new Date(String(then.expires_at)),
      checkoutSecret: '',
      email: typeof then.email === 'string' ? then.email : null,
    };
    return { type, object: renderCheckoutSession(row, collection, scopeAt(facts.event.createdAt)) };
  }
  if (!payment) return null;
  switch (rule.render) {
    case 'intent': {
      const asThen = paymentAsThen(payment, then as unknown as PaymentSnapshot);
      return { type, object: renderIntentThen(facts, asThen, type) };
    }
    case 'charge': {
      const asThen = paymentAsThen(payment, then as unknown as PaymentSnapshot);
      return { type, object: renderCharge(asThen, methodOf(facts, payment)) };
    }
    case 'refunded_charge': {
      const asThen = paymentAtRefund(payment, then as unknown as RefundSnapshot);
      return { type, object: renderCharge(asThen, methodOf(facts, payment)) };
    }
    case 'refund': {
      const refund = refundOf(payment, then as unknown as RefundSnapshot);
      if (!refund) return null;
      const object = renderRefund(refund, payment);
      return type === 'refund.updated' ? { type, object, previous: { status: 'pending' } } : { type, object };
    }
    case 'dispute': {
      if (!facts.dispute) return null;
      const snapshot = then as unknown as DisputeSnapshot;
      return {
        type: disputeType(rule.types, snapshot),
        object: renderDispute(facts.dispute, snapshot, payment),
      };
    }
  }
  return null;
}

/** The Stripe events of one native event, written if they are not yet; in rule order. */
export async function projectEvent(exec: Executor, event: EventRow): Promise<StripeEventRow[]> {
  const rules = RULES.filter((rule) => rule.native === event.type);
  if (rules.length === 0) return [];
  const facts = await factsOf(exec, event);
  const rows: StripeEventRow[] = [];
  for (const rule of rules) {
    if (!holds(rule, facts)) continue;
    const made = renderRule(rule, facts);
    if (!made) continue;
    rows.push({
      id: stripeEventId(event.id, rule.letter),
      merchantId: event.merchantId,
      type: made.type,
      sourceEventId: event.id,
      data: { object: made.object, ...(made.previous ? { previous_attributes: made.previous } : {}) },
      apiVersion: STRIPE_EVENT_API_VERSION,
      createdAt: event.createdAt,
    });
  }
  if (rows.length > 0)
    await exec.insert(stripeEvents).values(rows).onConflictDoNothing({ target: stripeEvents.id });
  return rows;
}

/** Native events read per statement while catching up. */
const BATCH = 100;

/**
 * Writes the Stripe events of every native event of the merchant that has some not written yet
 * (oldest first): what a read of the Stripe events does first, so that it lists them all.
 */
export async function catchUp(exec: Executor, merchantId: string): Promise<void> {
  let after = '';
  for (;;) {
    const batch = await exec
      .select(eventColumns)
      .from(events)
      .where(
        and(
          eq(events.merchantId, merchantId),
          inArray(events.type, [...NATIVE_TYPES]),
          after ? gt(events.id, after) : undefined,
          unprojected(),
        ),
      )
      .orderBy(events.id)
      .limit(BATCH);
    for (const event of batch) await projectEvent(exec, event);
    if (batch.length < BATCH) return;
    after = (batch.at(-1) as EventRow).id;
  }
}
