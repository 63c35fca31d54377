import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT, type ServerProcess, startServerProcess } from '../server-process.ts';
import { headerMap, Receiver } from '../webhooks/receiver.ts';

vi.setConfig({ testTimeout: 90_000 });

const SECRET = 'sk_test_listen000000000000000000000000000';
let server: ServerProcess;
let receiver: Receiver;
let listener: ChildProcess | null = null;

beforeAll(async () => {
  receiver = await new Receiver().start();
  server = await startServerProcess({
    args: ['--memory'],
    postgres: true,
    env: { SANDBANK_SECRET_KEY: SECRET },
  });
});
afterAll(async () => {
  listener?.kill('SIGKILL');
  await server.stop();
  await receiver.stop();
});

/** Starts `sandbank listen` and resolves with the signing secret it prints once it is subscribed. */
function startListener(): Promise<string> {
  listener = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'sandbank.js'),
      'listen',
      '--forward-to',
      receiver.url,
      '--api',
      server.url,
      '--events',
      'collection.created,collection.succeeded',
    ],
    { cwd: ROOT, env: { ...process.env, SANDBANK_SECRET_KEY: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listen did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const secret = /Signing secret (whsec_\S+)/.exec(output)?.[1];
      if (secret) {
        clearTimeout(timer);
        resolve(secret);
      }
    };
    listener?.stdout?.on('data', onData);
    listener?.stderr?.on('data', onData);
    listener?.once('exit', (code) => reject(new Error(`listen exited with ${code}:\n${output}`)));
  });
}

/** graphql-ws does not acknowledge a subscription: wait (bounded) until the server counts it live. */
async function subscribed(): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    if (Number(/^sandbank_live_subscriptions (\d+)/m.exec(text)?.[1] ?? 0) >= 1) return;
    if (Date.now() > deadline) throw new Error('the listener never subscribed');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitFor(count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (receiver.received.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${receiver.received.length} of ${count} forwarded`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('sandbank listen --forward-to', () => {
  it('forwards the subscribed events to a local URL, signed with the secret it printed', async () => {
    const secret = await startListener();
    await subscribed();
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const reference = `listen-${Date.now()}`;
    expect((await post('/v1/collect', { amount: 3, currency: 'USD', reference })).status).toBe(200);
    await post(`/v1/simulate/collections/${reference}/pay`, {
      method: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    await waitFor(2);
    const wh = new Webhook(secret);
    const events = receiver.received.map(
      (r) =>
        wh.verify(r.body, headerMap(r.headers)) as { type: string; data: { object: { reference: string } } },
    );
    expect(events.map((e) => e.type)).toEqual(['collection.created', 'collection.succeeded']);
    expect(events.every((e) => e.data.object.reference === reference)).toBe(true);
  });
});
