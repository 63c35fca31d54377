import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { signPayload } from './modules/webhooks/webhooks.signing.ts';

export interface ListenOptions {
  api: string;
  key: string;
  forwardTo: string;
  events: string[] | null;
  secret?: string;
  log: (line: string) => void;
}

interface StreamedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

const SUBSCRIPTION = `subscription ($types: [String!]) {
  events(types: $types) { id type createdAt data }
}`;

/**
 * `sandbank listen --forward-to URL`: subscribes to the merchant's events over graphql-ws and POSTs
 * each one to a local URL, signed per Standard Webhooks with a secret of its own (printed at start),
 * for receivers the sandbox cannot reach. Resolves when the subscription ends.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const secret = options.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
  const url = `${options.api.replace(/^http/, 'ws').replace(/\/+$/, '')}/graphql`;
  const client = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${options.key}` },
    retryAttempts: 0,
    on: {
      connected: () =>
        options.log(`Ready: forwarding events to ${options.forwardTo}\nSigning secret ${secret}`),
    },
  });
  try {
    const subscription = client.iterate<{ events: StreamedEvent }>({
      query: SUBSCRIPTION,
      variables: { types: options.events },
    });
    for await (const result of subscription) {
      if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
      const event = result.data?.events;
      if (event) await forward(event, options, secret);
    }
  } finally {
    await client.dispose();
  }
}

async function forward(event: StreamedEvent, options: ListenOptions, secret: string): Promise<void> {
  const body = JSON.stringify({
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.createdAt,
    data: event.data,
  });
  const headers = signPayload(event.id, body, [secret], new Date());
  try {
    const response = await fetch(options.forwardTo, { method: 'POST', body, headers, redirect: 'manual' });
    options.log(`${event.type} ${event.id} → ${response.status}`);
  } catch (error) {
    options.log(`${event.type} ${event.id} → ${error instanceof Error ? error.message : String(error)}`);
  }
}
