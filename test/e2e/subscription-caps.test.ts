import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { MAX_OPERATIONS_PER_CONNECTION } from '../../src/graphql/ws.ts';
import { MAX_SUBSCRIPTIONS_PER_MERCHANT } from '../../src/modules/events/events.bus.ts';
import { type ServerProcess, startServerProcess } from '../server-process.ts';

/** Live subscriptions are bounded per connection and per merchant; past either cap, a clear error. */
vi.setConfig({ testTimeout: 90_000 });

let server: ServerProcess;
let key: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startServerProcess({ args: ['--memory'], postgres: true });
  const res = await fetch(`${server.url}/v1/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Many subscriptions' }),
  });
  key = String(((await res.json()) as { secret_key: string }).secret_key);
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await server?.stop();
});

function connect(): Client {
  const client = createClient({
    url: `ws://127.0.0.1:${server.port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
}

/** Subscribes; resolves with the error the server answered with, or 'open' while it streams. */
function subscribe(client: Client): Promise<unknown> {
  return new Promise((resolve) => {
    client.subscribe(
      { query: 'subscription { events { id } }' },
      {
        next: (result) => resolve(result),
        error: (error) => resolve(error),
        complete: () => resolve('complete'),
      },
    );
    setTimeout(() => resolve('open'), 1_500);
  });
}

async function liveSubscriptions(): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^sandbank_live_subscriptions (\d+)/m.exec(text)?.[1]);
}

it(`a connection runs at most ${MAX_OPERATIONS_PER_CONNECTION} operations, a merchant holds at most ${MAX_SUBSCRIPTIONS_PER_MERCHANT} subscriptions`, async () => {
  const first = connect();
  const accepted = await Promise.all(
    Array.from({ length: MAX_OPERATIONS_PER_CONNECTION }, () => subscribe(first)),
  );
  expect(accepted.filter((outcome) => outcome !== 'open')).toEqual([]);
  const overConnection = (await subscribe(first)) as { message: string; extensions?: { code?: string } }[];
  expect(overConnection[0]?.extensions?.code).toBe('limit_exceeded');

  const connections = MAX_SUBSCRIPTIONS_PER_MERCHANT / MAX_OPERATIONS_PER_CONNECTION - 1;
  for (let n = 0; n < connections; n++) {
    const client = connect();
    await Promise.all(Array.from({ length: MAX_OPERATIONS_PER_CONNECTION }, () => subscribe(client)));
  }
  await vi.waitFor(async () => expect(await liveSubscriptions()).toBe(MAX_SUBSCRIPTIONS_PER_MERCHANT), {
    timeout: 10_000,
  });
  const overMerchant = (await subscribe(connect())) as { extensions?: { code?: string } }[];
  expect(JSON.stringify(overMerchant)).toContain('limit_exceeded');
  expect(await liveSubscriptions()).toBe(MAX_SUBSCRIPTIONS_PER_MERCHANT);
});
