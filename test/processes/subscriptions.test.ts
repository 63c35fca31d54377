import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { call, type ServerProcess, startServerProcess } from './server-process.ts';

// Real servers and real graphql-ws clients over loopback.
vi.setConfig({ testTimeout: 60_000 });

const SECRET = 'sk_test_subscriptions0000000000000000000';
const WAIT_MS = 10_000;
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

interface EventMessage {
  id: string;
  type: string;
  objectId: string;
  createdAt: string;
  data: { object: { id: string; state: string; reference?: string } };
}

interface TransactionUpdateMessage {
  kind: string;
  id: string;
  state: string;
  eventType: string;
  event: { id: string; type: string };
}

const EVENTS = `subscription Events($types: [String!]) {
  events(types: $types) { id type objectId createdAt data }
}`;

const TRANSACTION_UPDATED = `subscription Updates($kinds: [TransactionUpdateKind!], $ids: [ID!]) {
  transactionUpdated(kinds: $kinds, ids: $ids) { kind id state eventType event { id type } }
}`;

/** Rejects after `ms` of real time with a message saying what never happened. */
function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One subscription's messages, read in order with a bounded wait. */
class Feed<T> {
  readonly received: T[] = [];
  #read = 0;
  #error: unknown = null;
  #wake: (() => void) | null = null;
  readonly unsubscribe: () => void;

  constructor(client: Client, query: string, variables: Record<string, unknown>, field: string) {
    this.unsubscribe = client.subscribe<Record<string, T>>(
      { query, variables },
      {
        next: (result) => {
          if (result.errors) this.#error = new Error(JSON.stringify(result.errors));
          else if (result.data) this.received.push(result.data[field] as T);
          this.#wake?.();
        },
        error: (error) => {
          // A list of GraphQL errors (the operation was refused before it ran) becomes one Error.
          this.#error = Array.isArray(error) ? new Error(JSON.stringify(error)) : error;
          this.#wake?.();
        },
        complete: () => this.#wake?.(),
      },
    );
  }

  /** The next message not yet read (fails on a subscription error or after WAIT_MS). */
  async next(what = 'the next message'): Promise<T> {
    const wait = async () => {
      for (;;) {
        if (this.#read < this.received.length) return this.received[this.#read++] as T;
        if (this.#error !== null) throw this.#error;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    };
    return within(wait(), what);
  }
}

function connect(server: ServerProcess, authorization?: string): Client {
  return createClient({
    url: `ws://127.0.0.1:${server.port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: authorization === undefined ? {} : { authorization },
    retryAttempts: 0,
    lazy: true,
  });
}

async function signUp(server: ServerProcess, name: string) {
  const res = await call(server, null, 'POST', '/v1/merchants', { name });
  expect(res.status).toBe(201);
  return { secretKey: String(res.body.secret_key), publicKey: String(res.body.public_key) };
}

async function collect(server: ServerProcess, key: string, reference: string): Promise<string> {
  const res = await call(server, key, 'POST', '/v1/collect', { amount: '12.50', currency: 'USD', reference });
  expect(res.status).toBe(200);
  return String(res.body.id);
}

async function payWithCard(server: ServerProcess, key: string, reference: string) {
  const res = await call(server, key, 'POST', `/v1/simulate/collections/${reference}/pay`, {
    method: 'card',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
  });
  expect(res.status).toBe(200);
  expect(res.body.state).toBe('succeeded');
}

/**
 * Waits until the server streams `count` live subscriptions (its /metrics gauge): graphql-ws has no
 * acknowledgement of a subscribe, and an event committed before the subscription exists is not sent.
 */
async function liveSubscriptions(server: ServerProcess, count: number): Promise<void> {
  const poll = async () => {
    for (;;) {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const value = Number(/^sandbank_live_subscriptions (\d+)/m.exec(text)?.[1] ?? Number.NaN);
      if (value === count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await within(poll(), `${count} live subscriptions on ${server.url}`);
}

/** The close event that ended a client's connection (its first subscription fails with it). */
async function rejection(server: ServerProcess, authorization?: string) {
  const client = connect(server, authorization);
  try {
    const feed = new Feed<EventMessage>(client, EVENTS, {}, 'events');
    const error = await feed.next('the connection to be rejected').then(
      () => {
        throw new Error('the subscription was accepted');
      },
      (closed: unknown) => closed as { code: number; reason: string },
    );
    return { code: error.code, reason: error.reason };
  } finally {
    await client.dispose();
  }
}

describe('GraphQL subscriptions over graphql-ws on /graphql', () => {
  let server: ServerProcess;
  let key: string;
  const clients: Client[] = [];
  const open = (authorization: string) => {
    const client = connect(server, authorization);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    // On the shared test Postgres a pinned key would revoke the default merchant's key other test
    // files pinned; there the first merchant signs up instead.
    server = await startServerProcess({
      // In memory; DATABASE_URL (from TEST_DATABASE_URL) wins over --memory on the Postgres run.
      args: ['--memory'],
      postgres: true,
      env: onPostgres ? {} : { SANDBANK_SECRET_KEY: SECRET },
    });
    key = onPostgres ? (await signUp(server, 'First')).secretKey : SECRET;
  }, 90_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await server?.stop();
  });

  it('streams collection.created then collection.succeeded live after a headless card payment', async () => {
    const feed = new Feed<EventMessage>(open(`Bearer ${key}`), EVENTS, {}, 'events');
    await liveSubscriptions(server, 1);
    const id = await collect(server, key, 'live-1');
    const created = await feed.next('collection.created');
    expect(created).toMatchObject({ type: 'collection.created', objectId: id });
    expect(created.id).toMatch(/^evt_/);
    expect(created.data.object).toMatchObject({ id, state: 'pending', reference: 'live-1' });
    await payWithCard(server, key, 'live-1');
    const rest: EventMessage[] = [];
    for (;;) {
      const event = await feed.next('collection.succeeded');
      rest.push(event);
      if (event.type === 'collection.succeeded') break;
    }
    const succeeded = rest.at(-1) as EventMessage;
    expect(succeeded.objectId).toBe(id);
    expect(succeeded.data.object).toMatchObject({ id, state: 'succeeded' });
    expect(succeeded.id > created.id).toBe(true);
    // The card payment's events came on the same stream, in commit order.
    expect(rest.map((event) => event.type)).toEqual([
      'card_payment.authorized',
      'card_payment.captured',
      'balance_transaction.created',
      'collection.succeeded',
    ]);
    // The stream is exactly the merchant's event log (GET /v1/events), in order — the ledger's
    // balance_transaction events included.
    const log = await call(server, key, 'GET', '/v1/events?limit=100');
    const logged = (log.body.data as { id: string; type: string }[]).reverse();
    while (rest.length + 1 < logged.length) rest.push(await feed.next('the rest of the event log'));
    expect([created, ...rest].map((event) => event.id)).toEqual(logged.map((event) => event.id));
    expect(logged.map((event) => event.type)).toContain('balance_transaction.created');
    feed.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('filters events by type', async () => {
    const feed = new Feed<EventMessage>(
      open(`Bearer ${key}`),
      EVENTS,
      { types: ['collection.succeeded'] },
      'events',
    );
    await liveSubscriptions(server, 1);
    const id = await collect(server, key, 'typed-1');
    await payWithCard(server, key, 'typed-1');
    expect(await feed.next('collection.succeeded')).toMatchObject({
      type: 'collection.succeeded',
      objectId: id,
    });
    expect(feed.received).toHaveLength(1);
    feed.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('transactionUpdated(kinds, ids) receives only that collection’s updates', async () => {
    const other = await collect(server, key, 'tx-other');
    const id = await collect(server, key, 'tx-watched');
    const client = open(`Bearer ${key}`);
    const feed = new Feed<TransactionUpdateMessage>(
      client,
      TRANSACTION_UPDATED,
      { kinds: ['collection'], ids: [id] },
      'transactionUpdated',
    );
    const all = new Feed<TransactionUpdateMessage>(client, TRANSACTION_UPDATED, {}, 'transactionUpdated');
    await liveSubscriptions(server, 2);
    await payWithCard(server, key, 'tx-other');
    await payWithCard(server, key, 'tx-watched');
    const update = await feed.next('the watched collection to succeed');
    expect(update).toMatchObject({
      kind: 'collection',
      id,
      state: 'succeeded',
      eventType: 'collection.succeeded',
    });
    expect(update.event).toMatchObject({ type: 'collection.succeeded' });
    // The unfiltered subscription saw both payments (attempts and collections) by then...
    const seen: TransactionUpdateMessage[] = [];
    while (!seen.some((u) => u.id === id && u.state === 'succeeded'))
      seen.push(await all.next('all updates'));
    // (card payments and ledger postings are kinds too).
    expect(seen.map((u) => [u.kind, u.id === other ? 'other' : u.id === id ? 'watched' : '-'])).toEqual([
      ['card_payment', '-'],
      ['card_payment', '-'],
      ['balance_transaction', '-'],
      ['collection', 'other'],
      ['card_payment', '-'],
      ['card_payment', '-'],
      ['balance_transaction', '-'],
      ['collection', 'watched'],
    ]);
    // ...while the filtered one got the watched collection's update only.
    expect(feed.received).toEqual([update]);
    feed.unsubscribe();
    all.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('transactionUpdated(kinds: [card_payment]) streams a card payment through authorized and captured', async () => {
    const feed = new Feed<TransactionUpdateMessage>(
      open(`Bearer ${key}`),
      TRANSACTION_UPDATED,
      { kinds: ['card_payment'] },
      'transactionUpdated',
    );
    await liveSubscriptions(server, 1);
    const paid = await call(server, key, 'POST', '/v1/card_payments', {
      amount: '7.00',
      currency: 'USD',
      card: { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(paid.status).toBe(200);
    const authorized = await feed.next('card_payment.authorized');
    const captured = await feed.next('card_payment.captured');
    expect([authorized, captured].map((u) => [u.kind, u.id, u.state])).toEqual([
      ['card_payment', paid.body.id, 'authorized'],
      ['card_payment', paid.body.id, 'captured'],
    ]);
    feed.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('transactionUpdated(kinds: [dispute]) streams a dispute through needs_response and lost', async () => {
    const feed = new Feed<TransactionUpdateMessage>(
      open(`Bearer ${key}`),
      TRANSACTION_UPDATED,
      { kinds: ['dispute'] },
      'transactionUpdated',
    );
    await liveSubscriptions(server, 1);
    const paid = await call(server, key, 'POST', '/v1/card_payments', {
      amount: '9.00',
      currency: 'USD',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    expect(paid.status).toBe(200);
    const opened = await call(server, key, 'POST', `/v1/simulate/card_payments/${paid.body.id}/dispute`, {});
    expect(opened.status).toBe(200);
    expect((await call(server, key, 'POST', `/v1/disputes/${opened.body.id}/close`, {})).status).toBe(200);
    const first = await feed.next('dispute.needs_response');
    const second = await feed.next('dispute.lost');
    expect([first, second].map((u) => [u.kind, u.id, u.state, u.eventType])).toEqual([
      ['dispute', opened.body.id, 'needs_response', 'dispute.needs_response'],
      ['dispute', opened.body.id, 'lost', 'dispute.lost'],
    ]);
    feed.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('transactionUpdated(kinds: [inbound_transfer]) streams inbound entries through each state', async () => {
    const feed = new Feed<TransactionUpdateMessage>(
      open(`Bearer ${key}`),
      TRANSACTION_UPDATED,
      { kinds: ['inbound_transfer'] },
      'transactionUpdated',
    );
    await liveSubscriptions(server, 1);
    const originator = { name: 'Acme Payroll', routing_number: '021000021', account_number: '000987654321' };
    const ach = await call(server, key, 'POST', '/v1/simulate/inbound_transfers', {
      rail: 'ach',
      direction: 'credit',
      amount: '12.00',
      currency: 'USD',
      originator,
    });
    expect(ach.status, JSON.stringify(ach.body)).toBe(200);
    const achId = ach.body.id;
    const settled = await call(server, key, 'POST', `/v1/simulate/inbound_transfers/${achId}/settle`, {});
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    const returned = await call(server, key, 'POST', `/v1/inbound_transfers/${achId}/return`, {
      code: 'R23',
    });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    const fednow = await call(server, key, 'POST', '/v1/simulate/inbound_transfers', {
      rail: 'fednow',
      direction: 'credit',
      amount: '3.00',
      currency: 'USD',
      originator,
    });
    expect(fednow.status, JSON.stringify(fednow.body)).toBe(200);
    const updates: TransactionUpdateMessage[] = [];
    for (const what of ['created', 'settled', 'returned', 'created', 'completed'])
      updates.push(await feed.next(`inbound_transfer.${what}`));
    expect(updates.map((u) => [u.kind, u.id, u.state, u.eventType])).toEqual([
      ['inbound_transfer', achId, 'pending', 'inbound_transfer.created'],
      ['inbound_transfer', achId, 'settled', 'inbound_transfer.settled'],
      ['inbound_transfer', achId, 'returned', 'inbound_transfer.returned'],
      ['inbound_transfer', fednow.body.id, 'pending', 'inbound_transfer.created'],
      ['inbound_transfer', fednow.body.id, 'completed', 'inbound_transfer.completed'],
    ]);
    feed.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('rejects an unknown kind before it subscribes (kinds is an enum)', async () => {
    const feed = new Feed<TransactionUpdateMessage>(
      open(`Bearer ${key}`),
      TRANSACTION_UPDATED,
      { kinds: ['no_such_kind'] },
      'transactionUpdated',
    );
    await expect(feed.next('the error')).rejects.toThrow(/TransactionUpdateKind/);
  });

  it("never sends one merchant's events to another merchant's subscriber", async () => {
    const second = await signUp(server, 'Other');
    const mine = new Feed<EventMessage>(open(`Bearer ${key}`), EVENTS, {}, 'events');
    const theirs = new Feed<EventMessage>(open(`Bearer ${second.secretKey}`), EVENTS, {}, 'events');
    await liveSubscriptions(server, 2);
    const id = await collect(server, key, 'isolated-1');
    await payWithCard(server, key, 'isolated-1');
    for (;;) {
      const event = await mine.next("the first merchant's collection.succeeded");
      if (event.type === 'collection.succeeded' && event.objectId === id) break;
    }
    // The marker: the second merchant's first event is the first thing its subscriber sees.
    const marker = await collect(server, second.secretKey, 'marker-1');
    const first = await theirs.next("the second merchant's marker");
    expect(first).toMatchObject({ type: 'collection.created', objectId: marker });
    expect(theirs.received).toHaveLength(1);
    mine.unsubscribe();
    theirs.unsubscribe();
    await liveSubscriptions(server, 0);
  });

  it('rejects connections without a secret key (4401 missing/invalid, 4403 public key)', async () => {
    const { publicKey } = await signUp(server, 'Keys');
    expect(await rejection(server)).toMatchObject({
      code: 4401,
      reason: expect.stringMatching(/^api_key_missing/),
    });
    expect(await rejection(server, 'Bearer sk_test_unknown000000000000000000000000')).toMatchObject({
      code: 4401,
      reason: expect.stringMatching(/^api_key_invalid/),
    });
    expect(await rejection(server, `Bearer ${publicKey}`)).toMatchObject({
      code: 4403,
      reason: expect.stringMatching(/^secret_key_required/),
    });
  });

  it('a graceful shutdown closes live subscriptions with 1001 and exits 0', async () => {
    const feed = new Feed<EventMessage>(open(`Bearer ${key}`), EVENTS, {}, 'events');
    await liveSubscriptions(server, 1);
    const started = Date.now();
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(feed.next('the close')).rejects.toMatchObject({ code: 1001 });
  });
});

// Registered only when the suite runs against Postgres (CI does both runs).
const describeOnPostgres = onPostgres ? describe : () => undefined;
describeOnPostgres('two instances on one Postgres', () => {
  it("a subscriber on A receives a collection's events caused through B", async () => {
    const a = await startServerProcess({ postgres: true });
    const b = await startServerProcess({ postgres: true });
    try {
      const { secretKey } = await signUp(a, 'Two instances');
      const subscriber = connect(a, `Bearer ${secretKey}`);
      try {
        const feed = new Feed<EventMessage>(subscriber, EVENTS, {}, 'events');
        await liveSubscriptions(a, 1);
        const reference = `pair-${Date.now()}`;
        const id = await collect(b, secretKey, reference);
        await payWithCard(b, secretKey, reference);
        const created = await feed.next('collection.created from B');
        expect(created).toMatchObject({ type: 'collection.created', objectId: id });
        let event = await feed.next('collection.succeeded from B');
        while (event.type !== 'collection.succeeded') event = await feed.next('collection.succeeded from B');
        expect(event).toMatchObject({ objectId: id, data: { object: { state: 'succeeded' } } });
      } finally {
        await subscriber.dispose();
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});
