import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SandbankEvent, WebhookReceiver, WebhookReceiverOptions } from './testing.ts';
import { TESTING_USER_AGENT } from './user-agent.ts';

/**
 * sandbank/testing's webhook receiver (a loopback HTTP server registered as the merchant's webhook
 * endpoint, verifying each delivery's signature) and the REST call every helper makes. The public
 * types stay in src/testing.ts, whose declarations the build emits on their own.
 */

/** A request to the server's REST API; a non-2xx answer throws with the server's error. */
export async function call<T>(
  base: string,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const headers: Record<string, string> = { 'user-agent': TESTING_USER_AGENT };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}/v1${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Sandbank: ${method} /v1${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Standard Webhooks verification: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> under the secret. */
function verifySignature(secret: string, headers: IncomingMessage['headers'], body: string): string | null {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string')
    return 'missing webhook-id, webhook-timestamp or webhook-signature';
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : `no valid signature for ${id}`;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

interface Waiter {
  type: string;
  predicate: ((event: SandbankEvent) => boolean) | undefined;
  resolve(event: SandbankEvent): void;
}

export async function startReceiver(
  base: string,
  secretKey: string,
  options: WebhookReceiverOptions,
  onClose: (receiver: WebhookReceiver) => void,
): Promise<WebhookReceiver> {
  const events: SandbankEvent[] = [];
  const rejected: string[] = [];
  let waiters: Waiter[] = [];
  let secret = '';
  const matches = (waiter: Waiter, event: SandbankEvent) =>
    event.type === waiter.type && (!waiter.predicate || waiter.predicate(event));
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    readBody(request).then(
      (body) => {
        const refusal = secret ? verifySignature(secret, request.headers, body) : 'not registered yet';
        if (refusal) {
          rejected.push(refusal);
          response.writeHead(400).end();
          return;
        }
        let event: SandbankEvent;
        try {
          event = JSON.parse(body) as SandbankEvent;
        } catch {
          rejected.push('a signed body that is not JSON');
          response.writeHead(400).end();
          return;
        }
        // A redelivery of an event already received (same id) is acknowledged, not kept twice.
        if (!events.some((seen) => seen.id === event.id)) {
          events.push(event);
          const done = waiters.filter((waiter) => matches(waiter, event));
          waiters = waiters.filter((waiter) => !done.includes(waiter));
          for (const waiter of done) waiter.resolve(event);
        }
        response.writeHead(204).end();
      },
      () => response.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  let endpoint: { id: string; secret: string };
  try {
    endpoint = await call<{ id: string; secret: string }>(base, secretKey, 'POST', '/webhook_endpoints', {
      url,
      ...(options.events ? { enabled_events: options.events } : {}),
      description: 'sandbank/testing webhook receiver',
    });
  } catch (error) {
    server.close();
    throw error;
  }
  secret = endpoint.secret;
  let closing: Promise<void> | null = null;
  const receiver: WebhookReceiver = {
    url,
    endpointId: endpoint.id,
    secret,
    events,
    rejected,
    waitFor(type, predicate, waitOptions = {}) {
      const seen = events.find((event) => event.type === type && (!predicate || predicate(event)));
      if (seen) return Promise.resolve(seen);
      const timeoutMs = waitOptions.timeoutMs ?? 10_000;
      return new Promise<SandbankEvent>((resolve, reject) => {
        const waiter: Waiter = {
          type,
          predicate,
          resolve: (event) => {
            clearTimeout(timer);
            resolve(event);
          },
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((other) => other !== waiter);
          const received = events.map((event) => event.type).join(', ') || 'none';
          const refused = rejected.length ? `; refused: ${rejected.join('; ')}` : '';
          reject(new Error(`No ${type} event within ${timeoutMs} ms (received: ${received}${refused})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    clear() {
      events.length = 0;
      rejected.length = 0;
    },
    close() {
      closing ??= (async () => {
        onClose(receiver);
        await call(base, secretKey, 'DELETE', `/webhook_endpoints/${endpoint.id}`).catch(() => {});
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
  return receiver;
}
