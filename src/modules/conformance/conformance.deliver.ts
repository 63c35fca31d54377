import { createHmac } from 'node:crypto';
import { WebhookTimeoutError, type WebhookTransport } from '../../kernel/webhook-transport.ts';

/**
 * How a conformance run sends one delivery and what it keeps of it: the request as sent (headers
 * and body, the body cut at a cap) and the answer (status, body up to a cap, time taken), or why
 * there was none.
 */

const BODY_CAP = 4096;
const RESPONSE_CAP = 2048;

export interface DeliveryRecord {
  /** What this delivery is in its scenario ("first", "duplicate 2 of 3", "retry"). */
  label: string;
  sent_at: string;
  request: { headers: Record<string, string>; body: string };
  response: { status: number; body: string } | null;
  duration_ms: number;
  /** Why there was no answer: "no answer within 5000 ms", a connection error. */
  error: string | null;
  timed_out: boolean;
}

/** How a delivery is signed: as Sandbank signs, or one of the ways a forger or a replay would. */
export type Signing =
  | { kind: 'valid'; secrets: readonly string[] }
  | { kind: 'garbage'; bytes: Buffer }
  | { kind: 'stale'; secrets: readonly string[]; ageSeconds: number }
  | { kind: 'missing' };

function hmac(secret: string, content: string): string {
  return createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(content)
    .digest('base64');
}

/** Standard Webhooks headers of `body` as event `id`, signed as `signing` says, at real time `now`. */
export function headersFor(id: string, body: string, signing: Signing, now: Date): Record<string, string> {
  const seconds = Math.floor(now.getTime() / 1000) - (signing.kind === 'stale' ? signing.ageSeconds : 0);
  const timestamp = String(seconds);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Sandbank-Webhooks/1 (conformance)',
    'webhook-id': id,
    'webhook-timestamp': timestamp,
  };
  const content = `${id}.${timestamp}.${body}`;
  if (signing.kind === 'valid' || signing.kind === 'stale')
    headers['webhook-signature'] = signing.secrets.map((secret) => `v1,${hmac(secret, content)}`).join(' ');
  if (signing.kind === 'garbage') headers['webhook-signature'] = `v1,${signing.bytes.toString('base64')}`;
  return headers;
}

/** Sends one delivery to `url` within `timeoutMs` and records it. */
export async function deliver(
  transport: WebhookTransport,
  url: string,
  delivery: { label: string; id: string; body: string; signing: Signing; timeoutMs: number },
): Promise<DeliveryRecord> {
  const sentAt = new Date();
  const headers = headersFor(delivery.id, delivery.body, delivery.signing, sentAt);
  const started = performance.now();
  const request = { headers, body: delivery.body.slice(0, BODY_CAP) };
  try {
    const answer = await transport.send(url, {
      body: delivery.body,
      headers,
      timeoutMs: delivery.timeoutMs,
      responseCap: RESPONSE_CAP,
    });
    return {
      label: delivery.label,
      sent_at: sentAt.toISOString(),
      request,
      response: { status: answer.status, body: answer.body },
      duration_ms: Math.round(performance.now() - started),
      error: null,
      timed_out: false,
    };
  } catch (error) {
    const timedOut = error instanceof WebhookTimeoutError;
    const reason =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : String(error);
    return {
      label: delivery.label,
      sent_at: sentAt.toISOString(),
      request,
      response: null,
      duration_ms: Math.round(performance.now() - started),
      error: reason.slice(0, 500),
      timed_out: timedOut,
    };
  }
}

/** Whether the delivery was answered with a 2xx. */
export const accepted = (record: DeliveryRecord) =>
  record.response !== null && record.response.status >= 200 && record.response.status < 300;

/** Whether it was answered with a 4xx (refused). */
export const refused = (record: DeliveryRecord) =>
  record.response !== null && record.response.status >= 400 && record.response.status < 500;

/** "answered 200 in 12 ms" / "no answer within 5000 ms": a delivery in a sentence. */
export function told(record: DeliveryRecord): string {
  if (!record.response) return `the ${record.label} delivery got no answer (${record.error ?? 'no answer'})`;
  return `the ${record.label} delivery was answered ${record.response.status} in ${record.duration_ms} ms`;
}
