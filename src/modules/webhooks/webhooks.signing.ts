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
