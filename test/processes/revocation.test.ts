import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { call, type ServerProcess, startServerProcess } from './server-process.ts';
import { type SseSubscription, subscribeOverSse } from './sse.ts';

/**
 * Live subscriptions end with the credential they were opened with: a key that is rolled, a
 * dashboard session that signs out, over graphql-ws and over HTTP (SSE) alike. Real servers, real
 * graphql-ws and fetch clients, over loopback.
 */
vi.setConfig({ testTimeout: 60_000 });

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
/** How soon after the revoking request answers the stream must be closed. */
const CLOSED_WITHIN_MS = 1_000;

/** The connection closes with 4401 within CLOSED_WITHIN_MS of the revoking request's answer. */
async function expectClosedSoon(closed: Promise<{ code: number; at: number }>): Promise<void> {
  const answered = Date.now();
  const close = await closed;
  expect(close.code).toBe(4401);
  expect(close.at - answered).toBeLessThan(CLOSED_WITHIN_MS);
}

async function signUp(server: ServerProcess, name: string): Promise<string> {
  const res = await call(server, null, 'POST', '/v1/merchants', { name });
  expect(res.status).toBe(201);
  return String(res.body.secret_key);
}

/**
 * Opens an events subscription and resolves once the server streams it; `closed` resolves with
 * the close event that ends the connection, and the instant it arrived.
 */
async function subscribe(server: ServerProcess, options: { key?: string; cookie?: string; origin?: string }) {
  let closedWith: (event: { code: number; reason: string; at: number }) => void = () => {};
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) => {
    closedWith = resolve;
  });
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.origin) headers.origin = options.origin;
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const client: Client = createClient({
    url: `ws://127.0.0.1:${server.port}/graphql`,
    webSocketImpl: WithHeaders,
    connectionParams: options.key ? { authorization: `Bearer ${options.key}` } : {},
    retryAttempts: 0,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        closedWith({ code, reason, at: Date.now() });
      },
    },
  });
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  client.subscribe(
    { query: 'subscription { events { id type } }' },
    { next: () => {}, error: () => {}, complete: () => {} },
  );
  await connected;
  await vi.waitFor(
    async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(Number(/^sandbank_live_subscriptions (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    },
    { timeout: 10_000 },
  );
  return { client, closed };
}

/**
 * A collection made with `key`, and the proof that `stream` is open and streaming: it receives the
 * collection's collection.created.
 */
async function streams(server: ServerProcess, key: string, stream: SseSubscription): Promise<void> {
  const made = await call(server, key, 'POST', '/v1/collect', { amount: '5.00', currency: 'USD' });
  expect(made.status).toBe(200);
  await stream.nextData((data) => (data.events as { objectId?: string }).objectId === made.body.id);
  expect(stream.errors()).toEqual([]);
}

/** The stream was ended by the server, its last result the credential's refusal (401). */
async function expectEndedByRevocation(stream: SseSubscription): Promise<void> {
  expect(await stream.end()).toBe('ended');
  expect(stream.errors()).toEqual([
    expect.objectContaining({
      extensions: expect.objectContaining({ code: 'api_key_invalid', status: 401 }),
    }),
  ]);
  expect(stream.messages.at(-1)?.event).toBe('complete');
}

/** A browser's dashboard session over HTTP: its cookie header and the session's CSRF token. */
async function dashboardSession(server: ServerProcess, key: string) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  async function send(path: string, init: RequestInit = {}) {
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookie() },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/Max-Age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value.join('='));
    }
    const html = await res.text();
    return { status: res.status, csrf: /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '' };
  }
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const login = await send('/dashboard/login');
  expect((await send('/dashboard/login', form({ _csrf: login.csrf, key }))).status).toBe(303);
  const home = await send('/dashboard');
  expect(home.status).toBe(200);
  return {
    cookie,
    /** The session's CSRF token: with the cookie, it authenticates a GraphQL request over HTTP. */
    csrf: home.csrf,
    signOut: async () =>
      expect((await send('/dashboard/logout', form({ _csrf: home.csrf }))).status).toBe(303),
  };
}

describe('one instance', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ args: ['--memory'], postgres: true });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('a subscription opened with a key closes (4401) as soon as the key is rolled', async () => {
    const key = await signUp(server, 'Rolled while streaming');
    const { client, closed } = await subscribe(server, { key });
    expect((await call(server, key, 'POST', '/v1/keys/roll')).status).toBe(200);
    await expectClosedSoon(closed);
    await client.dispose();
  });

  it.each([
    ['it signs out', (_key: string, session: { signOut: () => Promise<void> }) => session.signOut()],
    [
      'a key roll ends it',
      async (key: string) => expect((await call(server, key, 'POST', '/v1/keys/roll')).status).toBe(200),
    ],
  ])("a dashboard session's subscription closes (4401) as soon as %s", async (_what, revoke) => {
    const key = await signUp(server, 'Session ended while streaming');
    const session = await dashboardSession(server, key);
    const origin = new URL(server.url).origin;
    const { client, closed } = await subscribe(server, { cookie: session.cookie(), origin });
    await revoke(key, session);
    await expectClosedSoon(closed);
    await client.dispose();
  });

  it("an SSE subscription opened with a key ends as soon as the key is rolled; another merchant's goes on", async () => {
    const key = await signUp(server, 'Rolled while streaming over SSE');
    const bystanderKey = await signUp(server, 'Streaming over SSE beside the roll');
    const stream = await subscribeOverSse(server, { key });
    const bystander = await subscribeOverSse(server, { key: bystanderKey });
    expect([stream.status, stream.contentType]).toEqual([200, 'text/event-stream']);
    await streams(server, key, stream);
    await streams(server, bystanderKey, bystander);

    expect((await call(server, key, 'POST', '/v1/keys/roll')).status).toBe(200);
    await expectEndedByRevocation(stream);
    // The other merchant's stream was left alone: still open, it receives its next event.
    await streams(server, bystanderKey, bystander);
    expect(await bystander.end(0)).toBe('open');
    bystander.close();
  });

  it.each([
    ['it signs out', (_key: string, session: { signOut: () => Promise<void> }) => session.signOut()],
    [
      'a key roll ends it',
      async (key: string) => expect((await call(server, key, 'POST', '/v1/keys/roll')).status).toBe(200),
    ],
  ])("a dashboard session's SSE subscription ends as soon as %s", async (_what, revoke) => {
    const key = await signUp(server, 'Session ended while streaming over SSE');
    const session = await dashboardSession(server, key);
    // GraphiQL's way in: the session cookie with its CSRF token, from PUBLIC_URL's origin.
    const stream = await subscribeOverSse(server, {
      headers: { cookie: session.cookie(), 'x-csrf-token': session.csrf, origin: new URL(server.url).origin },
    });
    await streams(server, key, stream);
    await revoke(key, session);
    await expectEndedByRevocation(stream);
  });
});

// Registered only when the suite runs against Postgres (CI does both runs).
const describeOnPostgres = onPostgres ? describe : () => undefined;
describeOnPostgres('two instances on one Postgres', () => {
  it('a key rolled through B closes the subscription opened with it on A', async () => {
    const a = await startServerProcess({ postgres: true });
    const b = await startServerProcess({ postgres: true });
    try {
      const key = await signUp(a, 'Rolled on the other instance');
      const { client, closed } = await subscribe(a, { key });
      expect((await call(b, key, 'POST', '/v1/keys/roll')).status).toBe(200);
      await expectClosedSoon(closed);
      // And the revoked key is refused by A's REST API at once, not after A's key cache expires.
      expect((await call(a, key, 'GET', '/v1/collections')).status).toBe(401);
      await client.dispose();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);

  it('a key rolled through B ends the SSE subscription opened with it on A', async () => {
    const a = await startServerProcess({ postgres: true });
    const b = await startServerProcess({ postgres: true });
    try {
      const key = await signUp(a, 'Rolled on the other instance over SSE');
      const stream = await subscribeOverSse(a, { key });
      await streams(b, key, stream);
      expect((await call(b, key, 'POST', '/v1/keys/roll')).status).toBe(200);
      await expectEndedByRevocation(stream);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});
