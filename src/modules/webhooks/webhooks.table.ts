import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt, updatedAt } from '../../db/columns.ts';

/** A merchant's webhook endpoint: where events of the enabled types are delivered, signed. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    /** Event types to deliver, or ["*"] for all. */
    enabledEvents: jsonb('enabled_events').$type<string[]>().notNull(),
    enabled: boolean('enabled').notNull(),
    /** Standard Webhooks signing secret, `whsec_` + base64 of 32 random bytes. */
    secret: text('secret').notNull(),
    /** The secret before the last rotation: still signed with until `previousSecretExpiresAt` (clock time). */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: at('previous_secret_expires_at'),
    /** Clock time of the first failure since the last success; 5 days of failures disable the endpoint. */
    failingSince: at('failing_since'),
    disabledReason: text('disabled_reason'),
    /** How its deliveries are shaped and signed: sandbank (Standard Webhooks) or stripe (Stripe-Signature). */
    format: text('format').$type<'sandbank' | 'stripe'>().notNull().default('sandbank'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_merchant_idx').on(t.merchantId, t.id)],
);

/** One row per (event, endpoint), written in the event's transaction. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    state: text('state', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    /** Merchant clock time of the next attempt. */
    nextAttemptAt: at('next_attempt_at').notNull(),
    /** Real time until which a worker owns this delivery (claimed, attempt in flight). */
    leaseUntil: at('lease_until'),
    lastStatus: integer('last_status'),
    /**
     * Webhook chaos drawn for the current series and not yet attempted (docs/guide/chaos.md): the hold
     * ("delay=200ms" or "reorder") and "; duplicate" when the delivered event is to be sent twice.
     */
    chaos: text('chaos'),
    /** Real time until which webhook chaos holds the delivery back (delay, or reorder at most). */
    heldUntil: at('held_until'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.state, t.nextAttemptAt),
    index('webhook_deliveries_event_idx').on(t.eventId),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_deliveries_ended_idx').on(t.merchantId, t.updatedAt).where(sql`${t.state} <> 'pending'`),
  ],
);

/** The attempt log of a delivery. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    merchantId: text('merchant_id').notNull(),
    /** Merchant clock time of the attempt. */
    attemptedAt: at('attempted_at').notNull(),
    status: integer('status'),
    durationMs: integer('duration_ms').notNull(),
    responseBody: text('response_body'),
    error: text('error'),
    nextRetryAt: at('next_retry_at'),
    /** The webhook chaos this attempt carried ("duplicate", "delayed 5000ms", "reordered"…); null when none. */
    chaos: text('chaos'),
  },
  (t) => [
    index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id),
    index('webhook_attempts_merchant_time_idx').on(t.merchantId, t.attemptedAt),
  ],
);
