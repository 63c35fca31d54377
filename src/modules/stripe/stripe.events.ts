import { and, desc, eq, gt, inArray, like, lt, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import type { Change } from '../../db/commit.ts';
import { newId } from '../../kernel/ids.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import {
  type DialectBody,
  pendingDeliveryCounts,
  queueDialectEvents,
  queueDialectEventsWith,
} from '../webhooks/webhooks.dialect.ts';
import { noSuch } from './stripe.errors.ts';
import { catchUp } from './stripe.events.project.ts';
import {
  CANCELED_LETTER,
  CREATED_LETTER,
  STRIPE_EVENT_API_VERSION,
  type StripeEventRow,
  stripeEventId,
} from './stripe.events.rules.ts';
import { stripeEvents } from './stripe.objects.table.ts';
import type { IntentView } from './stripe.payment-intents.read.ts';
import { renderIntent } from './stripe.render.ts';
import { type StripePaymentIntentRow, stripePaymentIntents } from './stripe.table.ts';

/**
 * The Stripe dialect's events (`/v1/events`): Stripe's event objects, each written once with its
 * object as it was when it happened. Most are made of native events (stripe.events.project.ts); a
 * PaymentIntent's creation, which has no native event, is written with the intent (insertIntent).
 *
 * Ids: `evt_` + 26 characters + one letter (31 characters; a native event's id has 30, so the two
 * never meet). A Stripe event made of a native event takes that event's 26 characters and the
 * letter of its rule (stripe.events.rules.ts); payment_intent.created takes the intent's own
 * (`pi_X` → `evt_Xn`), and a cancellation without a void fresh ones and `x`. All sort among the
 * native ids by when they were made.
 */

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** An event in Stripe's shape; `pending` is its deliveries not yet made (`pending_webhooks`). */
export function renderEvent(row: StripeEventRow, pending: number) {
  return {
    id: row.id,
    object: 'event',
    api_version: row.apiVersion ?? STRIPE_EVENT_API_VERSION,
    created: seconds(row.createdAt),
    data: row.data,
    livemode: false,
    pending_webhooks: pending,
    request: { id: null, idempotency_key: null },
    type: row.type,
  };
}

/**
 * A PaymentIntent's event that no native event stands for: its creation, or its cancellation when
 * no authorization was voided (a void is card_payment.voided's).
 */
function intentEvent(
  view: IntentView,
  type: 'payment_intent.created' | 'payment_intent.canceled',
): StripeEventRow {
  const { row } = view;
  const created = type === 'payment_intent.created';
  const at = created ? row.createdAt : row.updatedAt;
  return {
    id: created
      ? stripeEventId(`evt_${row.id.slice(3)}`, CREATED_LETTER)
      : stripeEventId(newId('event'), CANCELED_LETTER),
    merchantId: row.merchantId,
    type,
    sourceEventId: null,
    data: { object: renderIntent(view, { publicUrl: '', now: at, expand: new Set() }) },
    apiVersion: STRIPE_EVENT_API_VERSION,
    createdAt: at,
  };
}

const dialectEvent = (event: StripeEventRow) => ({ id: event.id, type: event.type, at: event.createdAt });

/** Writes such an event in the caller's transaction, queued to the Stripe endpoints that want it. */
async function recordIntentEvent(exec: Executor, event: StripeEventRow): Promise<void> {
  await exec.insert(stripeEvents).values(event).onConflictDoNothing({ target: stripeEvents.id });
  await queueDialectEvents(exec, event.merchantId, 'stripe', [dialectEvent(event)]);
}

/** Writes a new PaymentIntent's row with its payment_intent.created event. */
export async function insertIntent(exec: Executor, row: StripePaymentIntentRow): Promise<void> {
  await exec.insert(stripePaymentIntents).values(row);
  await recordIntentEvent(exec, intentEvent({ row, payment: null }, 'payment_intent.created'));
}

/**
 * A change that writes new intent `row` (confirmed with it, by the group commit), with its
 * payment_intent.created event and the event's deliveries.
 */
export function withIntentCreated(work: Change, row: StripePaymentIntentRow): Change {
  const event = intentEvent({ row, payment: null }, 'payment_intent.created');
  return queueDialectEventsWith(work.insert(stripeEvents, event), row.merchantId, 'stripe', [
    dialectEvent(event),
  ]);
}

/** After a cancellation: its payment_intent.canceled, unless voiding its authorization made one. */
export async function recordIntentCanceled(exec: Executor, view: IntentView): Promise<void> {
  if (view.payment?.state === 'voided') return;
  await recordIntentEvent(exec, intentEvent(view, 'payment_intent.canceled'));
}

export interface EventQuery {
  limit: number;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
  /** One type, or a family of them (`charge.*`, `*`). */
  type?: string | undefined;
  types?: string[] | undefined;
}

function typeFilter(query: EventQuery): SQL | undefined {
  const t = stripeEvents;
  if (query.types) return inArray(t.type, query.types);
  const type = query.type;
  if (type === undefined || type === '*') return undefined;
  if (type.endsWith('.*')) return like(t.type, `${type.slice(0, -1).replaceAll('_', '\\_')}%`);
  return eq(t.type, type);
}

async function rendered(exec: Executor, merchantId: string, rows: StripeEventRow[]) {
  const pending = await pendingDeliveryCounts(
    exec,
    merchantId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => renderEvent(row, pending.get(row.id) ?? 0));
}

/** A page of the merchant's Stripe events, newest first, after writing those not written yet. */
export async function listStripeEvents(ctx: ServiceContext, query: EventQuery) {
  const exec = dbOf(ctx);
  await catchUp(exec, ctx.merchant.id);
  const t = stripeEvents;
  const before = query.endingBefore !== undefined;
  const rows = await exec
    .select()
    .from(t)
    .where(
      and(
        eq(t.merchantId, ctx.merchant.id),
        query.startingAfter ? lt(t.id, query.startingAfter) : undefined,
        query.endingBefore ? gt(t.id, query.endingBefore) : undefined,
        typeFilter(query),
      ),
    )
    .orderBy(before ? t.id : desc(t.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  if (before) page.reverse();
  return { data: await rendered(exec, ctx.merchant.id, page), hasMore: rows.length > query.limit };
}

export async function retrieveStripeEvent(ctx: ServiceContext, id: string) {
  const exec = dbOf(ctx);
  await catchUp(exec, ctx.merchant.id);
  const [row] = id.includes('\u0000')
    ? []
    : await exec
        .select()
        .from(stripeEvents)
        .where(and(eq(stripeEvents.id, id), eq(stripeEvents.merchantId, ctx.merchant.id)));
  if (!row) throw noSuch('event', id);
  const [event] = await rendered(exec, ctx.merchant.id, [row]);
  return event;
}

/** The bodies of the merchant's Stripe events among `ids`, as their webhooks carry them. */
export async function stripeEventBodies(
  db: Db,
  merchantId: string,
  ids: string[],
): Promise<Map<string, DialectBody>> {
  const rows = await db
    .select()
    .from(stripeEvents)
    .where(and(eq(stripeEvents.merchantId, merchantId), inArray(stripeEvents.id, ids)));
  const events = await rendered(db, merchantId, rows);
  return new Map(
    events.map((event, i) => {
      const object = (event.data as { object?: { id?: unknown } }).object;
      const body: DialectBody = {
        type: event.type,
        objectId: typeof object?.id === 'string' ? object.id : '',
        json: JSON.stringify(event),
        createdAt: (rows[i] as StripeEventRow).createdAt,
      };
      return [event.id, body];
    }),
  );
}
