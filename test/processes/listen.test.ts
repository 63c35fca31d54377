import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseExact, stringify as stringifyExact } from 'lossless-json';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { headerMap, type Received, Receiver } from '../support/receiver.ts';
import { freePort, ROOT, type ServerProcess, startServerProcess } from './server-process.ts';

vi.setConfig({ testTimeout: 120_000 });

// A key of this run: on a shared Postgres the default merchant may hold other files' keys (and events) too.
const KEY = `sk_test_listen${randomBytes(12).toString('hex')}`;
/** This run's collection references start with it: other files' events on the same merchant are ignored. */
const RUN = `listen-${randomBytes(4).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'sandbank-listen-'));
/** The listeners' state directory (their default cursor file is under it): never the user's own. */
const stateDir = mkdtempSync(join(tmpdir(), 'sandbank-listen-state-'));
let port: number;
let server: ServerProcess;
const listeners = new Set<Listener>();

/** The server on `port`, on this file's database (a PGlite folder, or the suite's Postgres). */
function startServer(on: number): Promise<ServerProcess> {
  return startServerProcess({
    postgres: true,
    port: on,
    env: { SANDBANK_SECRET_KEY: KEY, SANDBANK_DATA_DIR: dataDir },
  });
}

beforeAll(async () => {
  port = await freePort();
  server = await startServer(port);
}, 120_000);
afterEach(async () => {
  for (const listener of listeners) await listener.stop();
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

interface Listener {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output from `from` on (bounded wait). */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** `sandbank listen ...` as a child process (the CLI's sources through tsx, as the server runs). */
function spawnListener(args: string[], api = server.url): Listener {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli.ts'), 'listen', '--api', api, ...args],
    {
      cwd: ROOT,
      env: { ...process.env, SANDBANK_SECRET_KEY: KEY, XDG_STATE_HOME: stateDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listener: Listener = {
    child,
    output: () => output,
    exited,
    waitFor(pattern, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output.slice(from));
          if (!match) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match);
          return true;
        };
        const fail = (why: string) => {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`listen ${why} before printing ${pattern}:\n${output}`));
        };
        const timer = setTimeout(() => fail('waited 60 s'), 60_000);
        waiters.add(check);
        if (!check()) void exited.then((code) => waiters.has(check) && fail(`exited with ${code}`));
      });
    },
    async stop() {
      listeners.delete(listener);
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  listeners.add(listener);
  return listener;
}

async function liveSubscriptions(): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^sandbank_live_subscriptions (\d+)/m.exec(text)?.[1] ?? 0);
}

/** graphql-ws does not acknowledge a subscription: wait (bounded) until the server counts `count` live. */
async function subscriptions(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await liveSubscriptions()) !== count) {
    if (Date.now() > deadline) throw new Error(`the server never counted ${count} live subscriptions`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts a listener and waits until it is subscribed; resolves with it and the secret it printed. */
async function startListener(args: string[]): Promise<{ listener: Listener; secret: string }> {
  await subscriptions(0);
  const listener = spawnListener(args);
  const secret = (await listener.waitFor(/Signing secret (whsec_\S+)/))[1] as string;
  await listener.waitFor(/^Ready: /m);
  await subscriptions(1);
  return { listener, secret };
}

function post(path: string, body: unknown, on = server) {
  return fetch(`${on.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

let references = 0;
/** Creates a collection (event collection.created) and returns its reference. */
async function collect(on = server, amount: number | string = 3): Promise<string> {
  const reference = `${RUN}-${++references}`;
  const res = await post('/v1/collect', { amount, currency: 'USD', reference }, on);
  expect(res.status).toBe(200);
  return reference;
}

interface Forwarded {
  id: string;
  type: string;
  data: { object: { reference?: string } };
}
const parse = (r: Received) => JSON.parse(r.body) as Forwarded;
/** This run's events among `received`, as `type reference`. */
const ours = (received: Received[]) =>
  received
    .map(parse)
    .filter((e) => e.data.object.reference?.startsWith(`${RUN}-`))
    .map((e) => `${e.type} ${e.data.object.reference}`);

async function until(condition: () => boolean, what: string, listener: Listener): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} never happened:\n${listener.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('sandbank listen --forward-to', () => {
  it('forwards the subscribed events, exact as GET /v1/events renders them, signed with the secret it printed', async () => {
    const receiver = await new Receiver().start();
    const { listener, secret } = await startListener([
      '--forward-to',
      receiver.url,
      '--events',
      'collection.created,collection.succeeded',
    ]);
    const reference = await collect(server, '12.50');
    await post(`/v1/simulate/collections/${reference}/pay`, {
      method: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    await until(() => ours(receiver.received).length >= 2, 'two forwards', listener);
    const wh = new Webhook(secret);
    const events = receiver.received
      .map((r) => wh.verify(r.body, headerMap(r.headers)) as Forwarded)
      .filter((e) => e.data.object.reference === reference);
    expect(events.map((e) => e.type)).toEqual(['collection.created', 'collection.succeeded']);
    // The body is the event as the record has it: the decimal keeps its currency's digits.
    const created = receiver.received.find((r) => parse(r).id === events[0]?.id) as Received;
    const stored = await (
      await fetch(`${server.url}/v1/events/${events[0]?.id}`, { headers: { authorization: `Bearer ${KEY}` } })
    ).text();
    expect(created.body).toContain('"amount":12.50');
    const { status, ...event } = parseExact(stored) as Record<string, unknown>;
    expect(status).toBe('success');
    expect(created.body).toBe(stringifyExact(event));
    expect(listener.output()).toMatch(new RegExp(`collection\\.created ${events[0]?.id} → 200`));
    await receiver.stop();
  });

  it('signs with the pinned --secret, and --events takes a prefix', async () => {
    const pinned = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await new Receiver().start();
    const { listener, secret } = await startListener([
      '--forward-to',
      receiver.url,
      '--events',
      'collection.*',
      '--secret',
      pinned,
    ]);
    expect(secret).toBe(pinned);
    expect(listener.output()).toMatch(/Ready: forwarding collection\.created, .*collection\.succeeded/);
    const reference = await collect();
    await post(`/v1/simulate/collections/${reference}/pay`, {
      method: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    await until(() => ours(receiver.received).length >= 2, 'two forwards', listener);
    const wh = new Webhook(pinned);
    for (const r of receiver.received) wh.verify(r.body, headerMap(r.headers));
    // Only collection events: not the payment attempt's, card payment's or ledger's events of the payment.
    expect(receiver.received.map(parse).every((e) => e.type.startsWith('collection.'))).toBe(true);
    expect(ours(receiver.received)).toEqual([
      `collection.created ${reference}`,
      `collection.succeeded ${reference}`,
    ]);
    // Another secret does not verify it.
    const other = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
    const first = receiver.received[0] as Received;
    expect(() => other.verify(first.body, headerMap(first.headers))).toThrow();
    await receiver.stop();
  });

  it('refuses an unknown event type, a malformed secret and a bad --max-attempts, saying why', async () => {
    const unknown = spawnListener([
      '--forward-to',
      'http://127.0.0.1:9/x',
      '--events',
      'collection.created,nope',
    ]);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toMatch(
      /Unknown event type "nope"\. Known types \(GET \/v1\/event_types\): .*collection\.created/,
    );
    const prefix = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--events', 'nothing.*']);
    expect(await prefix.exited).toBe(1);
    expect(prefix.output()).toMatch(/Unknown event type "nothing\.\*"/);
    const secret = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--secret', 'hunter2']);
    expect(await secret.exited).toBe(1);
    expect(secret.output()).toMatch(/--secret must be "whsec_" followed by 24 to 64 bytes in base64/);
    const attempts = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--max-attempts', '0']);
    expect(await attempts.exited).toBe(1);
    expect(attempts.output()).toMatch(/--max-attempts must be a whole number from 1 to 1000/);
  });

  it('lists every option in --help', async () => {
    const help = spawnListener(['--help']);
    expect(await help.exited).toBe(0);
    for (const option of [
      '--forward-to',
      '--key',
      '--api',
      '--events',
      '--secret',
      '--max-attempts',
      '--since',
      '--cursor-file',
      '--no-resume',
      '--help',
    ])
      expect(help.output()).toContain(option);
  });

  it('retries a receiver that is down, then failing, and delivers every event once, in order', async () => {
    const receiverPort = await freePort();
    const { listener } = await startListener([
      '--forward-to',
      `http://127.0.0.1:${receiverPort}/hooks`,
      '--events',
      'collection.created',
    ]);
    const refs = [await collect(), await collect(), await collect()];
    // Nothing listens on the port yet: the first event's attempts fail, and say so.
    await listener.waitFor(/collection\.created evt_\S+ → fetch failed .*retrying in/);
    const receiver = new Receiver();
    receiver.status = 500;
    await receiver.start(receiverPort);
    await listener.waitFor(/collection\.created evt_\S+ → 500 \(attempt \d+ of 10; retrying in \d+s\)/);
    const refused = receiver.received.length;
    receiver.status = 200;
    await until(() => ours(receiver.received.slice(refused)).length >= 3, 'three deliveries', listener);
    refs.push(await collect());
    await until(() => ours(receiver.received.slice(refused)).length >= 4, 'a fourth delivery', listener);
    // Answered 500: the first event only (it blocks the others, which keep their order).
    expect(new Set(ours(receiver.received.slice(0, refused)))).toEqual(
      new Set([`collection.created ${refs[0]}`]),
    );
    expect(ours(receiver.received.slice(refused))).toEqual(refs.map((ref) => `collection.created ${ref}`));
    await receiver.stop();
  });

  it('reports an event as DROPPED after --max-attempts and goes on with the next', async () => {
    const receiver = await new Receiver().start();
    receiver.status = 503;
    const { listener } = await startListener([
      '--forward-to',
      receiver.url,
      '--events',
      'collection.created',
      '--max-attempts',
      '2',
    ]);
    const dropped = await collect();
    const line = await listener.waitFor(
      /DROPPED collection\.created (evt_\S+) after 2 attempts \(last: 503\); GET \/v1\/events\/evt_\S+ still has it/,
    );
    receiver.status = 200;
    const next = await collect();
    await until(
      () => ours(receiver.received).includes(`collection.created ${next}`),
      'the next event',
      listener,
    );
    expect(ours(receiver.received)).toEqual([
      `collection.created ${dropped}`,
      `collection.created ${dropped}`,
      `collection.created ${next}`,
    ]);
    expect(receiver.received.filter((r) => parse(r).id === line[1])).toHaveLength(2);
    await receiver.stop();
  });

  it('reconnects after the server goes away and catches up on the events emitted meanwhile, once each', async () => {
    const receiver = await new Receiver().start();
    const { listener } = await startListener([
      '--forward-to',
      receiver.url,
      '--events',
      'collection.created',
    ]);
    const refs = [await collect()];
    await until(() => ours(receiver.received).length === 1, 'the first delivery', listener);
    const mark = listener.output().length;
    await server.stop();
    await listener.waitFor(
      /Lost the connection to http:\/\/127\.0\.0\.1:\d+ \(.*\); reconnecting in 1s/,
      mark,
    );
    // Meanwhile another server on the same database, on another port, emits two events.
    const elsewhere = await startServer(await freePort());
    refs.push(await collect(elsewhere), await collect(elsewhere));
    await elsewhere.stop();
    server = await startServer(port);
    await listener.waitFor(/Reconnected to http:\/\/127\.0\.0\.1:\d+; catching up after evt_\S+/, mark);
    await until(() => ours(receiver.received).length === 3, 'the catch-up', listener);
    await subscriptions(1);
    refs.push(await collect());
    await until(
      () => ours(receiver.received).length === 4,
      'a live delivery after the reconnection',
      listener,
    );
    expect(ours(receiver.received)).toEqual(refs.map((ref) => `collection.created ${ref}`));
    await receiver.stop();
  });
  it('resumes after a restart from the cursor it saved: the missed events in order, nothing delivered twice', async () => {
    const receiver = await new Receiver().start();
    const cursorFile = join(stateDir, 'resume', 'cursors.json');
    const args = [
      '--forward-to',
      receiver.url,
      '--events',
      'collection.created',
      '--cursor-file',
      cursorFile,
    ];
    const first = (await startListener(args)).listener;
    expect(first.output()).not.toMatch(/Catching up/);
    const refs = [await collect(), await collect()];
    await until(() => ours(receiver.received).length === 2, 'two deliveries', first);
    // Stopped once the listener has seen the second answer (not merely once the receiver got it).
    const lastId = parse(receiver.received.at(-1) as Received).id;
    await first.waitFor(new RegExp(`collection\\.created ${lastId} → 200`));
    await first.stop();
    const saved = readFileSync(cursorFile, 'utf8');
    expect(saved).not.toContain(KEY);
    expect(saved).toContain(`"last_delivered": "${lastId}"`);
    // While no listener runs: three more.
    refs.push(await collect(), await collect(), await collect());
    const second = (await startListener(args)).listener;
    const line = await second.waitFor(
      /Catching up: (\d+) events? after (evt_\S+), the cursor saved in (.+)$/m,
    );
    // On a shared database other files' collections count too: at least this run's three.
    expect(Number(line[1])).toBeGreaterThanOrEqual(3);
    expect(line[2]).toBe(lastId);
    expect(line[3]).toBe(cursorFile);
    await until(() => ours(receiver.received).length === 5, 'the missed three', second);
    // Then live.
    refs.push(await collect());
    await until(() => ours(receiver.received).length === 6, 'a live delivery after catching up', second);
    expect(ours(receiver.received)).toEqual(refs.map((ref) => `collection.created ${ref}`));
    const ids = receiver.received.map((r) => parse(r).id);
    expect(new Set(ids).size).toBe(ids.length);
    await second.stop();

    // --no-resume starts live: what happened meanwhile is not forwarded (it would come first).
    const skipped = await collect();
    const third = (await startListener([...args, '--no-resume'])).listener;
    expect(third.output()).not.toMatch(/Catching up/);
    const live = await collect();
    await until(
      () => ours(receiver.received).includes(`collection.created ${live}`),
      'the live event',
      third,
    );
    expect(ours(receiver.received)).not.toContain(`collection.created ${skipped}`);
    expect(ours(receiver.received).slice(6)).toEqual([`collection.created ${live}`]);
    await receiver.stop();
  });

  it('--since an event id or a time forwards the events after it first, in order, then goes live', async () => {
    const warmup = await new Receiver().start();
    const cursorFile = join(stateDir, 'since.json');
    // Events to start from: recorded while the warm-up listener forwards them (their ids and created_at).
    const before = (
      await startListener([
        '--forward-to',
        warmup.url,
        '--events',
        'collection.created',
        '--cursor-file',
        cursorFile,
      ])
    ).listener;
    const refs = [await collect(), await collect(), await collect(), await collect()];
    await until(() => ours(warmup.received).length === 4, 'four deliveries', before);
    await before.stop();
    const events = warmup.received.map(parse) as (Forwarded & { created_at: string })[];
    const byRef = (ref: string) =>
      events.find((e) => e.data.object.reference === ref) as Forwarded & {
        created_at: string;
      };
    await warmup.stop();

    // After an id: the events after the second, not the second itself.
    const receiver = await new Receiver().start();
    const second = byRef(refs[1] as string);
    const sinceId = (
      await startListener([
        '--forward-to',
        receiver.url,
        '--events',
        'collection.created',
        '--cursor-file',
        cursorFile,
        '--since',
        second.id,
      ])
    ).listener;
    await sinceId.waitFor(new RegExp(`Catching up: \\d+ events? after ${second.id}$`, 'm'));
    await until(() => ours(receiver.received).length === 2, 'the two after the id', sinceId);
    const next = await collect();
    await until(() => ours(receiver.received).length === 3, 'a live delivery', sinceId);
    expect(ours(receiver.received)).toEqual(
      [refs[2], refs[3], next].map((ref) => `collection.created ${ref}`),
    );
    await sinceId.stop();

    // From a time: the events whose created_at is at or after it (the third's on).
    const other = await new Receiver().start();
    const third = byRef(refs[2] as string);
    const sinceTime = (
      await startListener([
        '--forward-to',
        other.url,
        '--events',
        'collection.created',
        '--cursor-file',
        cursorFile,
        '--since',
        third.created_at,
      ])
    ).listener;
    await sinceTime.waitFor(
      new RegExp(
        `Catching up: \\d+ events? after ${third.created_at.replace(/\./g, '\\.')} \\(created_at\\)`,
      ),
    );
    await until(() => ours(other.received).length === 3, 'the three from the time', sinceTime);
    expect(ours(other.received)).toEqual([refs[2], refs[3], next].map((ref) => `collection.created ${ref}`));
    await receiver.stop();
    await other.stop();
  });

  it('refuses a --since that is neither an event id nor a time, an unknown event id and a damaged cursor file', async () => {
    const words = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--since', 'yesterday']);
    expect(await words.exited).toBe(1);
    expect(words.output()).toMatch(/--since must be an event id .* or an ISO 8601 time with its zone/);
    const local = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--since', '2026-11-28T10:00']);
    expect(await local.exited).toBe(1);
    expect(local.output()).toMatch(/--since must be an event id/);
    const missing = `evt_${'0'.repeat(10)}${'A'.repeat(16)}`;
    const unknown = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--since', missing]);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toMatch(
      new RegExp(`--since ${missing}: GET /v1/events/${missing} answered 404`),
    );
    const both = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--since', missing, '--no-resume']);
    expect(await both.exited).toBe(1);
    expect(both.output()).toMatch(/--since and --no-resume contradict each other/);
    const damaged = join(stateDir, 'damaged.json');
    writeFileSync(damaged, 'not json');
    const broken = spawnListener(['--forward-to', 'http://127.0.0.1:9/x', '--cursor-file', damaged]);
    expect(await broken.exited).toBe(1);
    expect(broken.output()).toMatch(/damaged\.json is not a listen cursor file: remove it/);
    expect(readFileSync(damaged, 'utf8')).toBe('not json');
    for (const refused of [words, local, unknown, both, broken])
      expect(refused.output()).not.toMatch(/^\s+at /m);
  });
});
