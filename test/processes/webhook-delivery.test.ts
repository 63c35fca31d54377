import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { headerMap, Receiver } from '../support/receiver.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';

// Real servers (one to three per test) and a real receiver on loopback.
vi.setConfig({ testTimeout: 120_000 });

const SECRET = 'sk_test_webhookdelivery00000000000000000';
let receiver: Receiver;
const dirs: string[] = [];
beforeAll(async () => {
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function call(server: ServerProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** Polls (bounded) until the receiver has at least `count` deliveries: real-time delivery, not business time. */
async function received(count: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receiver.received.length < count) {
    if (Date.now() > deadline)
      throw new Error(`only ${receiver.received.length} of ${count} deliveries arrived`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhook delivery by the background worker', () => {
  it('delivers every committed event at least once across a SIGKILL, signed', async () => {
    receiver.received.length = 0;
    const dir = mkdtempSync(join(tmpdir(), 'sandbank-hooks-'));
    dirs.push(dir);
    const env = { SANDBANK_DATA_DIR: dir, SANDBANK_SECRET_KEY: SECRET };
    // The worker is off while events pile up, then the process dies without warning.
    const first = await startServerProcess({ env: { ...env, SCHEDULER_INTERVAL_MS: '0' } });
    const endpoint = await call(first, 'POST', '/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['collection.created'],
    });
    const references = Array.from({ length: 12 }, (_, i) => `crash-${i}`);
    for (const reference of references) {
      expect(
        (await call(first, 'POST', '/v1/collect', { amount: 5, currency: 'USD', reference })).status,
      ).toBe('success');
    }
    expect(receiver.received).toHaveLength(0);
    await first.stop('SIGKILL');

    const second = await startServerProcess({ env: { ...env, SCHEDULER_INTERVAL_MS: '100' } });
    try {
      await received(references.length);
      const wh = new Webhook(String(endpoint.secret));
      const delivered = receiver.received.map(
        (r) =>
          (wh.verify(r.body, headerMap(r.headers)) as { data: { object: { reference: string } } }).data.object
            .reference,
      );
      expect(new Set(delivered)).toEqual(new Set(references));
    } finally {
      await second.stop();
    }
  });
});

describe('WEBHOOK_BLOCK_PRIVATE_NETWORKS=true', () => {
  it('the worker refuses a loopback receiver and logs why', async () => {
    receiver.received.length = 0;
    const server = await startServerProcess({
      args: ['--memory'],
      env: {
        SANDBANK_SECRET_KEY: SECRET,
        SCHEDULER_INTERVAL_MS: '50',
        WEBHOOK_BLOCK_PRIVATE_NETWORKS: 'true',
      },
    });
    try {
      const endpoint = await call(server, 'POST', '/v1/webhook_endpoints', { url: receiver.url });
      const event = await call(server, 'POST', `/v1/webhook_endpoints/${endpoint.id}/test`);
      const deadline = Date.now() + 20_000;
      let attempts: { error: string | null }[] = [];
      while (attempts.length === 0) {
        if (Date.now() > deadline) throw new Error('the worker made no attempt');
        await new Promise((resolve) => setTimeout(resolve, 50));
        const log = (await call(server, 'GET', `/v1/events/${event.id}/deliveries`)) as {
          data: { attempts: { error: string | null }[] }[];
        };
        attempts = log.data[0]?.attempts ?? [];
      }
      expect(attempts[0]?.error).toContain('127.0.0.1 (loopback)');
      expect(receiver.received).toHaveLength(0);
    } finally {
      await server.stop();
    }
  });
});

// Registered only when the suite runs against Postgres (CI does both runs).
const onPostgres = process.env.TEST_DATABASE_URL ? describe : () => undefined;
onPostgres('two instances on one Postgres', () => {
  it('share the deliveries: each event reaches the receiver once', async () => {
    receiver.received.length = 0;
    // A database of their own: their workers must not take other test files' deliveries.
    const admin = postgres(process.env.TEST_DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
    const name = `sandbank_pair_${process.pid}_${Date.now()}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.TEST_DATABASE_URL ?? '');
    url.pathname = `/${name}`;
    const env = { SANDBANK_SECRET_KEY: SECRET, SCHEDULER_INTERVAL_MS: '50', DATABASE_URL: url.toString() };
    const a = await startServerProcess({ env });
    const b = await startServerProcess({ env }).catch(async (error: unknown) => {
      await a.stop();
      throw error;
    });
    try {
      const suffix = String(Date.now());
      await call(a, 'POST', '/v1/webhook_endpoints', {
        url: receiver.url,
        enabled_events: ['collection.created'],
      });
      const references = Array.from({ length: 20 }, (_, i) => `pair-${suffix}-${i}`);
      await Promise.all(
        references.map((reference, i) =>
          call(i % 2 ? a : b, 'POST', '/v1/collect', { amount: 1, currency: 'USD', reference }),
        ),
      );
      await received(references.length);
      // Give a duplicate every chance to show up: a few more worker rounds on both instances.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ids = receiver.received.map((r) => headerMap(r.headers)['webhook-id']);
      expect(ids).toHaveLength(references.length);
      expect(new Set(ids).size).toBe(references.length);
    } finally {
      await a.stop();
      await b.stop();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
