/**
 * sandbank/testing in a vitest suite: the run's one Sandbank (vitest.config.ts's globalSetup), a
 * merchant of this file's own on it, a clean slate for every test (reset), the clock moved instead
 * of waiting, webhooks received and verified.
 */
import { sandbankMerchant } from 'sandbank/testing';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

// Milliseconds: a sign-up (POST /v1/merchants). Its keys, clock, objects and webhooks are this file's.
const shop = await sandbankMerchant({ name: 'Checkout tests' });
const webhooks = await shop.webhookReceiver();
afterAll(() => shop.close());
beforeEach(async () => {
  await shop.reset();
  webhooks.clear();
});

/** The code under test would do this: ask Sandbank for a checkout of an order. */
async function createCheckout(amount: number): Promise<{ id: string; state: string }> {
  const response = await fetch(`${shop.url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'USD', description: 'Order 1042' }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; state: string };
}

describe('checkout of an order', () => {
  it('announces the new collection by webhook', async () => {
    const collection = await createCheckout(25);
    const event = await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
    expect(event.data.object).toMatchObject({ id: collection.id, amount: 25, currency: 'USD' });
  });

  it('expires an unpaid checkout after a day of simulated time', async () => {
    const collection = await createCheckout(40);
    const clock = await shop.advanceClock({ seconds: 25 * 3600 });
    expect(clock.ran.length).toBeGreaterThan(0);
    const event = await webhooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
    expect(event.data.object).toMatchObject({ state: 'expired' });
  });
});
