import { createHmac } from 'node:crypto';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

function hmac(secret: string, content: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(content).digest('base64');
}

/**
 * Standard Webhooks: `webhook-id`, `webhook-timestamp` (real Unix seconds: receivers check it against
 * their own clock) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, with a
 * second signature by the previous secret while it is still valid.
 */
export function signPayload(
  messageId: string,
  body: string,
  secrets: string[],
  realNow: Date,
): Record<string, string> {
  const timestamp = String(Math.floor(realNow.getTime() / 1000));
  const content = `${messageId}.${timestamp}.${body}`;
  return {
    'content-type': 'application/json',
    'user-agent': 'Sandbank-Webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((secret) => `v1,${hmac(secret, content)}`).join(' '),
  };
}

/**
 * Stripe's scheme, for the endpoints of the Stripe dialect (format `stripe`): `Stripe-Signature:
 * t=<real Unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` keyed by the whole secret string (its
 * `whsec_` prefix included), one `v1` per valid secret — what Stripe's libraries verify.
 */
export function signStripePayload(body: string, secrets: string[], realNow: Date): Record<string, string> {
  const timestamp = String(Math.floor(realNow.getTime() / 1000));
  const signatures = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
  );
  return {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Sandbank-Webhooks/1 (Stripe dialect)',
    'stripe-signature': [`t=${timestamp}`, ...signatures].join(','),
  };
}
