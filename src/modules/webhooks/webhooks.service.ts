import { randomBytes } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.ts';
import { inTransaction } from '../../db/tx.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { type ListQuery, type Page, toPage } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import { purgePerMerchant } from '../clock/clock.sql.ts';
import type { ServiceContext } from '../context.ts';
import { getEvent, recordEvent } from '../events/events.service.ts';
import { events } from '../events/events.table.ts';
import { merchants } from '../merchants/merchants.table.ts';
import { ALL_EVENTS, listEventTypes } from './webhooks.event-types.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.table.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** After a rotation the old secret still signs for 24 h of clock time (both signatures are sent). */
export const PREVIOUS_SECRET_SECONDS = 24 * 3600;

/** At most this many webhook endpoints per merchant (as Stripe allows in test mode). */
export const MAX_WEBHOOK_ENDPOINTS = 16;

const eventType = z
  .string()
  .regex(/^(\*|[a-z_]+\.[a-z_]+)$/, 'an event type is "*" or like "collection.succeeded"')
  .refine((type) => type === ALL_EVENTS || knownEventTypes().has(type), {
    message: 'not an event type this sandbox sends (GET /v1/event_types lists them), nor "*"',
  });
const eventsList = z.array(eventType).min(1).max(100);
const webhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const createEndpointSchema = z.strictObject({
  url: webhookUrl,
  enabled_events: eventsList.optional(),
  /** Another name for enabled_events, accepted too. */
  events: eventsList.optional(),
  description: z.string().max(500).optional(),
});

export const updateEndpointSchema = z.strictObject({
  url: webhookUrl.optional(),
  enabled_events: eventsList.optional(),
  events: eventsList.optional(),
  enabled: z.boolean().optional(),
  description: z.string().max(500).nullable().optional(),
});

const fieldCodes = { url: 'url_invalid' } as const;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

let eventTypes: Set<string> | null = null;
function knownEventTypes(): Set<string> {
  eventTypes ??= new Set(listEventTypes());
  return eventTypes;
}

/**
 * Holds the merchant's row for the rest of the transaction, so that concurrent creates count the
 * endpoints one after another; refuses the create past MAX_WEBHOOK_ENDPOINTS.
 */
async function assertEndpointRoom(exec: Executor, merchantId: string): Promise<void> {
  await exec.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for('update');
  const [row] = await exec
    .select({ n: count() })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.merchantId, merchantId));
  if ((row?.n ?? 0) >= MAX_WEBHOOK_ENDPOINTS)
    throw new SandbankError('limit_exceeded', {
      message: `A merchant has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
    });
}

export async function createEndpoint(ctx: ServiceContext, raw: unknown): Promise<EndpointRow> {
  const input = parseInput(createEndpointSchema, raw, fieldCodes);
  return inTransaction(ctx.db, ctx.tx, (tx) => insertEndpoint(ctx, tx, input));
}

async function insertEndpoint(
  ctx: ServiceContext,
  tx: Executor,
  input: z.output<typeof createEndpointSchema>,
): Promise<EndpointRow> {
  await assertEndpointRoom(tx, ctx.merchant.id);
  const now = ctx.clock.now();
  const row: EndpointRow = {
    id: newId('webhookEndpoint'),
    merchantId: ctx.merchant.id,
    url: input.url,
    description: input.description ?? null,
    enabledEvents: input.enabled_events ?? input.events ?? ['*'],
    enabled: true,
    secret: generateSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx.insert(webhookEndpoints).values(row);
  return row;
}

export async function getEndpoint(ctx: ServiceContext, id: string): Promise<EndpointRow> {
  const [row] = await (ctx.tx ?? ctx.db)
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.merchantId, ctx.merchant.id)));
  if (!row)
    throw new SandbankError('resource_not_found', { message: `No webhook endpoint ${id.slice(0, 60)}.` });
  return row;
}

export async function listEndpoints(ctx: ServiceContext, query: ListQuery): Promise<Page<EndpointRow>> {
  const conditions = [eq(webhookEndpoints.merchantId, ctx.merchant.id)];
  if (query.starting_after) conditions.push(lt(webhookEndpoints.id, query.starting_after));
  const rows = await (ctx.tx ?? ctx.db)
    .select()
    .from(webhookEndpoints)
    .where(and(...conditions))
    .orderBy(desc(webhookEndpoints.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit);
}

export async function updateEndpoint(ctx: ServiceContext, id: string, raw: unknown): Promise<EndpointRow> {
  const input = parseInput(updateEndpointSchema, raw, fieldCodes);
  const current = await getEndpoint(ctx, id);
  const enabledEvents = input.enabled_events ?? input.events;
  const reenabled = input.enabled === true && !current.enabled;
  const [row] = await (ctx.tx ?? ctx.db)
    .update(webhookEndpoints)
    .set({
      ...(input.url ? { url: input.url } : {}),
      ...(enabledEvents ? { enabledEvents } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(reenabled ? { failingSince: null, disabledReason: null } : {}),
      ...(input.enabled === false ? { disabledReason: 'disabled by the merchant' } : {}),
      updatedAt: ctx.clock.now(),
    })
    .where(eq(webhookEndpoints.id, current.id))
    .returning();
  if (!row) throw new SandbankError('resource_not_found');
  return row;
}

/** Deletes an endpoint; its pending deliveries end as failed. */
export async function deleteEndpoint(ctx: ServiceContext, id: string): Promise<EndpointRow> {
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const current = await getEndpoint({ ...ctx, tx }, id);
    await tx
      .update(webhookDeliveries)
      .set({ state: 'failed', updatedAt: ctx.clock.now() })
      .where(and(eq(webhookDeliveries.endpointId, current.id), eq(webhookDeliveries.state, 'pending')));
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id));
    return current;
  });
}

/** A new secret; the old one keeps signing (as a second signature) for 24 h of clock time. */
export async function rotateSecret(ctx: ServiceContext, id: string): Promise<EndpointRow> {
  const current = await getEndpoint(ctx, id);
  const now = ctx.clock.now();
  const [row] = await (ctx.tx ?? ctx.db)
    .update(webhookEndpoints)
    .set({
      secret: generateSecret(),
      previousSecret: current.secret,
      previousSecretExpiresAt: addSeconds(now, PREVIOUS_SECRET_SECONDS),
      updatedAt: now,
    })
    .where(eq(webhookEndpoints.id, current.id))
    .returning();
  if (!row) throw new SandbankError('resource_not_found');
  return row;
}

/**
 * Sends a `webhook.test` event to this endpoint only: the event is recorded for the merchant and
 * one delivery is queued for the endpoint, whatever its enabled_events.
 */
export async function sendTestEvent(ctx: ServiceContext, id: string): Promise<string> {
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const endpoint = await getEndpoint({ ...ctx, tx }, id);
    const now = ctx.clock.now();
    const eventId = await recordEvent(tx, {
      merchantId: ctx.merchant.id,
      type: 'webhook.test',
      objectId: endpoint.id,
      data: { object: { id: endpoint.id, object: 'webhook_endpoint', url: endpoint.url } },
      at: now,
    });
    await queueDelivery(tx, ctx.merchant.id, eventId, endpoint.id, now);
    return eventId;
  });
}

/** One delivery of an event to an endpoint, due now (idempotent: the id is the pair). */
export async function queueDelivery(
  exec: NonNullable<ServiceContext['tx']> | ServiceContext['db'],
  merchantId: string,
  eventId: string,
  endpointId: string,
  at: Date,
): Promise<void> {
  const id = `wd_${eventId.slice(4)}${endpointId.slice(3)}`;
  await exec
    .insert(webhookDeliveries)
    .values({
      id,
      merchantId,
      eventId,
      endpointId,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoUpdate({
      target: webhookDeliveries.id,
      set: { state: 'pending', attempts: 0, nextAttemptAt: at, leaseUntil: null, updatedAt: at },
    });
}

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
  const exec = ctx.tx ?? ctx.db;
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
  const exec = ctx.tx ?? ctx.db;
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

export const redeliverSchema = z.strictObject({ endpoint_id: z.string().min(1).max(64).optional() });

/**
 * Queues an event again, now, for one endpoint or for every enabled endpoint subscribed to its
 * type; a fresh series of attempts (the attempt log keeps the earlier ones).
 */
export async function redeliverEvent(
  ctx: ServiceContext,
  eventId: string,
  raw: unknown,
): Promise<DeliveryLog[]> {
  const input = parseInput(redeliverSchema, raw);
  await inTransaction(ctx.db, ctx.tx, async (tx) => {
    const scoped = { ...ctx, tx };
    const event = await getEvent(scoped, eventId);
    const now = ctx.clock.now();
    const targets = input.endpoint_id
      ? [await getEndpoint(scoped, input.endpoint_id)]
      : (
          await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, ctx.merchant.id))
        ).filter(
          (endpoint) =>
            endpoint.enabled &&
            (endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(event.type)),
        );
    for (const endpoint of targets) await queueDelivery(tx, ctx.merchant.id, event.id, endpoint.id, now);
  });
  return listDeliveries(ctx, eventId);
}

/**
 * The delivery log is kept 30 days of the merchant's clock: attempts made that long ago, and
 * deliveries that ended (delivered or failed) that long ago. Pending deliveries are kept.
 */
export const DELIVERY_LOG_RETENTION_DAYS = 30;

const logCutoff = (now: SQL) => sql`${now} - make_interval(days => ${DELIVERY_LOG_RETENTION_DAYS})`;

/** Retention: deletes up to `limit` attempts made DELIVERY_LOG_RETENTION_DAYS ago or more. */
export function purgeOldAttempts(db: Db, realNow: Date, limit: number): Promise<number> {
  return purgePerMerchant(db, realNow, limit, {
    table: 'webhook_attempts',
    where: (now) => sql`t.attempted_at <= ${logCutoff(now)}`,
  });
}

/** Retention: deletes up to `limit` deliveries that ended DELIVERY_LOG_RETENTION_DAYS ago or more. */
export function purgeEndedDeliveries(db: Db, realNow: Date, limit: number): Promise<number> {
  return purgePerMerchant(db, realNow, limit, {
    table: 'webhook_deliveries',
    where: (now) => sql`t.state <> 'pending' AND t.updated_at <= ${logCutoff(now)}`,
  });
}
