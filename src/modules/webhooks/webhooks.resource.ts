import type { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.table.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** An endpoint as the API shows it; the secret only on create and rotate. */
export function endpointResource(
  row: EndpointRow,
  options: { withSecret?: boolean } = {},
): Record<string, unknown> {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince?.toISOString() ?? null,
    ...(options.withSecret ? { secret: row.secret } : {}),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A delivery with its attempt log; `eventType` when known (the event's type, e.g. collection.succeeded). */
export function deliveryResource(
  row: typeof webhookDeliveries.$inferSelect,
  attempts: (typeof webhookAttempts.$inferSelect)[],
  eventType?: string,
): Record<string, unknown> {
  return {
    id: row.id,
    object: 'webhook_delivery',
    event: row.eventId,
    ...(eventType ? { event_type: eventType } : {}),
    endpoint: row.endpointId,
    state: row.state,
    attempt_count: row.attempts,
    next_attempt_at: row.state === 'pending' ? row.nextAttemptAt.toISOString() : null,
    attempts: attempts.map((attempt) => ({
      id: attempt.id,
      attempted_at: attempt.attemptedAt.toISOString(),
      status: attempt.status,
      duration_ms: attempt.durationMs,
      response_body: attempt.responseBody,
      error: attempt.error,
      next_retry_at: attempt.nextRetryAt?.toISOString() ?? null,
    })),
    created_at: row.createdAt.toISOString(),
  };
}
