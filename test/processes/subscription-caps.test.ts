import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { GRAPHQL_WAITING_PER_CREDENTIAL } from '../../src/api/graphql/lanes.ts';
import { MAX_OPERATIONS_PER_CONNECTION } from '../../src/api/graphql/ws.ts';
import { MAX_SUBSCRIPTIONS_PER_MERCHANT } from '../../src/modules/events/events.bus.ts';
import { call, type ServerProcess, startServerProcess } from './server-process.ts';
import { type SseSubscription, subscribeOverSse } from './sse.ts';

/** Live subscriptions are bounded per connection and per merchant; past either cap, a clear error. */
vi.setConfig({ testTimeout: 90_000 });

let server: ServerProcess;
let key: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startServerProcess({
    args: ['--memory'],
    postgres: true,
    // As deployed: under NODE_ENV=test graphql-yoga pings SSE clients every 300 ms instead of 12 s,
    // and a ping is what used to notice a client gone; a stream must be freed without one.
    env: { NODE_ENV: 'production' },
  });
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

function connect(secretKey = key): Client {
  const client = createClient({
    url: `ws://127.0.0.1:${server.port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${secretKey}` },
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

async function signUp(name: string): Promise<string> {
  const res = await call(server, null, 'POST', '/v1/merchants', { name });
  expect(res.status).toBe(201);
  return String(res.body.secret_key);
}

/** Waits (up to 5 s) until the instance streams `count` live subscriptions. */
async function liveSubscriptionsReach(count: number): Promise<void> {
  await vi.waitFor(async () => expect(await liveSubscriptions()).toBe(count), {
    timeout: 5_000,
    interval: 20,
  });
}

/** The error codes a refused SSE subscription answered with (its stream ends after them). */
async function refusal(stream: SseSubscription): Promise<(string | undefined)[]> {
  expect(await stream.end()).toBe('ended');
  return stream.errors().map((error) => error.extensions?.code);
}

const BATCH = GRAPHQL_WAITING_PER_CREDENTIAL / 2;

it('SSE streams count against the cap; a key roll ends them and frees it for the owner’s new key', async () => {
  const owner = await signUp('Filled over SSE');
  const before = await liveSubscriptions();
  // Opened in batches a credential's GraphQL lane can always hold: a burst of 100 at once may be
  // refused by the lane (429) when the streams start slowly, which is the lane's own limit.
  const stale: SseSubscription[] = [];
  while (stale.length < MAX_SUBSCRIPTIONS_PER_MERCHANT)
    stale.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(BATCH, MAX_SUBSCRIPTIONS_PER_MERCHANT - stale.length) }, () =>
          subscribeOverSse(server, { key: owner }),
        ),
      )),
    );
  expect(stale.map((stream) => stream.status)).toEqual(stale.map(() => 200));
  await liveSubscriptionsReach(before + MAX_SUBSCRIPTIONS_PER_MERCHANT);
  expect(await refusal(await subscribeOverSse(server, { key: owner }))).toEqual(['limit_exceeded']);

  const rolled = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { rollKeys { ... on MutationRollKeysSuccess { data { secretKey } } } }',
    }),
  });
  const newKey = ((await rolled.json()) as { data: { rollKeys: { data: { secretKey: string } } } }).data
    .rollKeys.data.secretKey;
  // Every stream the old key opened has ended, and none of them holds a slot any more.
  const ends = await Promise.all(stale.map((stream) => stream.end()));
  expect(ends).toEqual(stale.map(() => 'ended'));
  await liveSubscriptionsReach(before);

  // The owner's new subscriptions are accepted, over SSE and over graphql-ws.
  const fresh = await subscribeOverSse(server, { key: newKey });
  const made = await call(server, newKey, 'POST', '/v1/collect', { amount: '1.00', currency: 'USD' });
  await fresh.nextData((data) => (data.events as { objectId?: string }).objectId === made.body.id);
  expect(fresh.errors()).toEqual([]);
  expect(await subscribe(connect(newKey))).toBe('open');
  fresh.close();
});

it('an SSE stream whose client goes away frees its slot at once', async () => {
  const owner = await signUp('Gone away over SSE');
  const before = await liveSubscriptions();
  const stream = await subscribeOverSse(server, { key: owner });
  await liveSubscriptionsReach(before + 1);
  stream.close();
  await liveSubscriptionsReach(before);
});
