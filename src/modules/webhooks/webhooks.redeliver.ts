import { eq } from 'drizzle-orm';
import { inContextTx, type ServiceContext } from '../context.ts';
import { getEvent } from '../events/events.service.ts';
import { deliverDueForMerchant } from './webhooks.delivery.ts';
import { type DeliveryLog, listDeliveries } from './webhooks.log.ts';
import type { RedeliverInput } from './webhooks.schema.ts';
import { getEndpoint, queueDelivery } from './webhooks.service.ts';
import { webhookEndpoints } from './webhooks.table.ts';

/**
 * Queues an event again, now, for one endpoint or for every enabled endpoint subscribed to its
 * type; a fresh series of attempts (the attempt log keeps the earlier ones).
 */
export async function redeliverEvent(
  ctx: ServiceContext,
  eventId: string,
  input: RedeliverInput,
): Promise<DeliveryLog[]> {
  await inContextTx(ctx, async (tx) => {
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
 * Redelivers an event (as POST /v1/events/{id}/redeliver) and makes the attempts at once, waiting
 * for the receivers' answers (at most the 15 s timeout): the dashboard's redeliver button, where a
 * person wants to see the result, not a queued delivery.
 */
export async function redeliverEventNow(
  ctx: ServiceContext,
  eventId: string,
  input: RedeliverInput,
): Promise<DeliveryLog[]> {
  await redeliverEvent(ctx, eventId, input);
  await deliverDueForMerchant(ctx.db, ctx.webhookTransport, ctx.merchant.id, ctx.clock.now());
  return listDeliveries(ctx, eventId);
}
