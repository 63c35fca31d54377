import { randomBytes } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { recordEvent } from '../events/events.service.ts';
import { merchants } from '../merchants/merchants.table.ts';
import type { CreateEndpointInput, UpdateEndpointInput } from './webhooks.schema.ts';
import { webhookDeliveries, webhookEndpoints } from './webhooks.table.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** After a rotation the old secret still signs for 24 h of clock time (both signatures are sent). */
export const PREVIOUS_SECRET_SECONDS = 24 * 3600;

/** At most this many webhook endpoints per merchant (as Stripe allows in test mode). */
export const MAX_WEBHOOK_ENDPOINTS = 16;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
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

/** A new endpoint; `format` stripe makes one of the Stripe dialect's (webhooks.dialect.ts). */
export async function createEndpoint(
  ctx: ServiceContext,
  input: CreateEndpointInput,
  format: EndpointRow['format'] = 'sandbank',
): Promise<EndpointRow> {
  return inContextTx(ctx, (tx) => insertEndpoint(ctx, tx, input, format));
}

async function insertEndpoint(
  ctx: ServiceContext,
  tx: Executor,
  input: CreateEndpointInput,
  format: EndpointRow['format'],
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
    secret: input.secret ?? generateSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    disabledReason: null,
    format,
    createdAt: now,
    updatedAt: now,
  };
  await tx.insert(webhookEndpoints).values(row);
  return row;
}

export async function getEndpoint(ctx: ServiceContext, id: string): Promise<EndpointRow> {
  const [row] = await dbOf(ctx)
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.merchantId, ctx.merchant.id)));
  if (!row)
    throw new SandbankError('resource_not_found', { message: `No webhook endpoint ${id.slice(0, 60)}.` });
  return row;
}

/** The merchant's webhook endpoints among `ids` (GraphQL's nodes(ids:)). */
export function endpointsByIds(ctx: ServiceContext, ids: string[]): Promise<EndpointRow[]> {
  return merchantRowsByIds<EndpointRow>(ctx, webhookEndpoints, ids);
}

export function listEndpoints(ctx: ServiceContext, query: ListQuery): Promise<Page<EndpointRow>> {
  return merchantPage(ctx, webhookEndpoints, query);
}

/** Every endpoint of the merchant in one format, newest first (there are MAX_WEBHOOK_ENDPOINTS at most). */
export function endpointsOfFormat(
  ctx: ServiceContext,
  format: EndpointRow['format'],
): Promise<EndpointRow[]> {
  return dbOf(ctx)
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.merchantId, ctx.merchant.id), eq(webhookEndpoints.format, format)))
    .orderBy(desc(webhookEndpoints.id));
}

export async function updateEndpoint(
  ctx: ServiceContext,
  id: string,
  input: UpdateEndpointInput,
): Promise<EndpointRow> {
  const current = await getEndpoint(ctx, id);
  const enabledEvents = input.enabled_events ?? input.events;
  const reenabled = input.enabled === true && !current.enabled;
  const [row] = await dbOf(ctx)
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
  return inContextTx(ctx, async (tx) => {
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
  const [row] = await dbOf(ctx)
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
  return inContextTx(ctx, async (tx) => {
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

/** A delivery's id: its event's then its endpoint's (so an endpoint's deliveries sort by event). */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return `wd_${eventId.slice(4)}${endpointId.slice(3)}`;
}

/** One delivery of an event to an endpoint, due now (idempotent: the id is the pair). */
export async function queueDelivery(
  exec: NonNullable<ServiceContext['tx']> | ServiceContext['db'],
  merchantId: string,
  eventId: string,
  endpointId: string,
  at: Date,
): Promise<void> {
  const id = deliveryIdOf(eventId, endpointId);
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
      // A new series: webhook chaos draws again for it.
      set: {
        state: 'pending',
        attempts: 0,
        nextAttemptAt: at,
        leaseUntil: null,
        chaos: null,
        heldUntil: null,
        updatedAt: at,
      },
    });
}
