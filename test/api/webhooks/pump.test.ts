import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryPump } from '../../../src/modules/webhooks/webhooks.pump.ts';
import { createTestApp, openIsolatedTestDatabase, type TestApp } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

// The pump delivers every merchant's due deliveries in its database: on Postgres it gets a database
// of its own, so it never takes another test file's deliveries.
let t: TestApp;
let receiver: Receiver;
let dropDatabase = async () => {};
beforeAll(async () => {
  const isolated = await openIsolatedTestDatabase();
  t = await createTestApp({ database: isolated.database });
  dropDatabase = isolated.drop;
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  // Closes the app's database (and on Postgres drops it).
  await dropDatabase();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('DeliveryPump', () => {
  it('drains a backlog larger than a batch, even while the API counts as saturated', async () => {
    const m = await t.merchant();
    const created = await t.rest('POST', '/v1/webhook_endpoints', {
      key: m.secretKey,
      body: { url: receiver.url, enabled_events: ['collection.created'] },
    });
    expect(created.status).toBe(200);
    for (let i = 0; i < 25; i++) {
      const res = await t.rest('POST', '/v1/collect', {
        key: m.secretKey,
        body: { amount: 1, currency: 'USD', reference: `pump-${i}` },
      });
      expect(res.status).toBe(200);
    }
    let saturatedChecks = 0;
    const pump = new DeliveryPump(t.database.db, pino({ level: 'silent' }), {
      batchSize: 10,
      coalesceMs: 0,
      apiSaturated: () => {
        saturatedChecks++;
        return true;
      },
    });
    pump.wake();
    pump.wake(); // a wake-up while it runs is folded into the running loop, not a second sender
    await until(() => receiver.received.length >= 25, '25 deliveries');
    await pump.stop();
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(25);
    expect(ids).toHaveLength(25);
    // Three batches (10, 10, 5): it paced itself after each full one and went on.
    expect(saturatedChecks).toBeGreaterThanOrEqual(2);
  });

  it('a wake-up after the loop stopped starts it again; stop() ends it', async () => {
    const m = await t.merchant();
    await t.rest('POST', '/v1/webhook_endpoints', {
      key: m.secretKey,
      body: { url: receiver.url, enabled_events: ['collection.created'] },
    });
    const pump = new DeliveryPump(t.database.db, pino({ level: 'silent' }), { coalesceMs: 0 });
    const before = receiver.received.length;
    await t.rest('POST', '/v1/collect', { key: m.secretKey, body: { amount: 1, currency: 'USD' } });
    pump.wake();
    await until(() => receiver.received.length === before + 1, 'the first delivery');
    await t.rest('POST', '/v1/collect', { key: m.secretKey, body: { amount: 2, currency: 'USD' } });
    pump.wake();
    await until(() => receiver.received.length === before + 2, 'the second delivery');
    await pump.stop();
    await t.rest('POST', '/v1/collect', { key: m.secretKey, body: { amount: 3, currency: 'USD' } });
    pump.wake(); // stopped: does nothing
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received.length).toBe(before + 2);
  });
});
