import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { headerMap, Receiver } from '../support/receiver.ts';

/**
 * Deliveries verify in Svix's library too (the api tier checks them with standardwebhooks): a
 * second, independent verifier that reads the unbranded webhook-* headers and accepts every
 * delivery with its endpoint's secret, and none with another endpoint's.
 */
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp();
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

type Json = Record<string, unknown>;

describe("Svix's verifier", () => {
  it("accepts every delivery with its endpoint's secret and refuses another endpoint's", async () => {
    const m = await t.merchant();
    const post = (path: string, body: unknown = {}) => t.rest<Json>('POST', path, { key: m.secretKey, body });
    await post('/v1/clock/freeze');
    const all = (await post('/v1/webhook_endpoints', { url: receiver.url })).body as { secret: string };
    const other = (
      await post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['payout.paid'] })
    ).body as { secret: string };
    await post('/v1/collect', { amount: '10.50', currency: 'USD', reference: 'svix' });
    await post('/v1/clock/advance', { seconds: 1 });
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const r of receiver.received) {
      const payload = new SvixWebhook(all.secret).verify(r.body, headerMap(r.headers)) as Json;
      expect(payload.object).toBe('event');
      expect(() => new SvixWebhook(other.secret).verify(r.body, headerMap(r.headers))).toThrow();
      // A tampered body fails too.
      expect(() =>
        new SvixWebhook(all.secret).verify(r.body.replace('10.50', '99.99'), headerMap(r.headers)),
      ).toThrow();
    }
  });
});
