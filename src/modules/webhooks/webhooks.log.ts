import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { events } from '../../db/events.table.ts';
import { merchantRowsByIds, storableIds } from '../../db/pages.ts';
import { describedValues } from '../../kernel/described-values.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { getEvent } from '../events/events.service.ts';
import { getEndpoint } from './webhooks.service.ts';
import { webhookAttempts, webhookDeliveries } from './webhooks.table.ts';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export interface DeliveryLog {
  delivery: DeliveryRow;
  /** The delivered event's type (`collection.succeeded`). */
  eventType: string;
  /** Oldest first. */
  attempts: AttemptRow[];
}

type Exec = NonNullable<ServiceContext['tx']> | ServiceContext['db'];

/** The deliveries with their attempt logs (one query for all the attempts). */
async function withAttempts(
  exec: Exec,
  deliveries: { delivery: DeliveryRow; eventType: string }[],
): Promise<DeliveryLog[]> {
  if (deliveries.length === 0) return [];
  const attempts = await exec
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        deliveries.map((d) => d.delivery.id),
      ),
    )
    .orderBy(asc(webhookAttempts.id));
  return deliveries.map((entry) => ({
    ...entry,
    attempts: attempts.filter((a) => a.deliveryId === entry.delivery.id),
  }));
}

/** An event's deliveries with their attempt logs (GET /v1/events/{id}/deliveries). */
export async function listDeliveries(ctx: ServiceContext, eventId: string): Promise<DeliveryLog[]> {
  const event = await getEvent(ctx, eventId);
  const exec = dbOf(ctx);
  const deliveries = await exec
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, event.id), eq(webhookDeliveries.merchantId, ctx.merchant.id)))
    .orderBy(asc(webhookDeliveries.id));
  return withAttempts(
    exec,
    deliveries.map((delivery) => ({ delivery, eventType: event.type })),
  );
}

/**
 * An endpoint's deliveries, newest event first, each with its event's type and its attempt log
 * (GET /v1/webhook_endpoints/{id}/deliveries): the delivery log of one endpoint.
 */
export async function listEndpointDeliveries(
  ctx: ServiceContext,
  endpointId: string,
  query: ListQuery,
): Promise<Page<DeliveryLog>> {
  const endpoint = await getEndpoint(ctx, endpointId);
  const exec = dbOf(ctx);
  const conditions = [
    eq(webhookDeliveries.endpointId, endpoint.id),
    eq(webhookDeliveries.merchantId, ctx.merchant.id),
  ];
  if (query.starting_after) conditions.push(lt(webhookDeliveries.id, query.starting_after));
  const rows = await exec
    .select({ delivery: webhookDeliveries, eventType: sql<string>`coalesce(${events.type}, '')` })
    .from(webhookDeliveries)
    .leftJoin(events, and(eq(events.id, webhookDeliveries.eventId), eq(events.merchantId, ctx.merchant.id)))
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.id))
    .limit(query.limit + 1);
  const page = toPage(
    rows.map((row) => ({ ...row, id: row.delivery.id })),
    query.limit,
  );
  const deliveries = page.data.map(({ delivery, eventType }) => ({ delivery, eventType }));
  return { ...page, data: await withAttempts(exec, deliveries) };
}

/** The merchant's deliveries among `ids`, with their attempt logs (GraphQL's nodes(ids:)). */
export async function deliveriesByIds(ctx: ServiceContext, ids: string[]): Promise<DeliveryLog[]> {
  const wanted = storableIds(ids);
  if (wanted.length === 0) return [];
  const exec = dbOf(ctx);
  const rows = await exec
    .select({ delivery: webhookDeliveries, eventType: sql<string>`coalesce(${events.type}, '')` })
    .from(webhookDeliveries)
    .leftJoin(events, and(eq(events.id, webhookDeliveries.eventId), eq(events.merchantId, ctx.merchant.id)))
    .where(and(inArray(webhookDeliveries.id, wanted), eq(webhookDeliveries.merchantId, ctx.merchant.id)));
  return withAttempts(exec, rows);
}

/** The merchant's delivery attempts among `ids` (GraphQL's nodes(ids:)). */
export function attemptsByIds(ctx: ServiceContext, ids: string[]): Promise<AttemptRow[]> {
  return merchantRowsByIds<AttemptRow>(ctx, webhookAttempts, ids);
}

export const WebhookDeliveryStateValues = describedValues(
  'WebhookDeliveryState',
  'Where a webhook delivery stands.',
  {
    pending: 'Not delivered yet: its next attempt is due at nextAttemptAt.',
    delivered: 'The endpoint answered 2xx.',
    failed: 'Every retry failed, or its endpoint was deleted; redeliverEvent sends the event again.',
  } satisfies Record<DeliveryRow['state'], string>,
);
