/**
 * sandbank/testing in a vitest suite: one in-memory Sandbank for the file, a clean merchant for
 * every test (reset), the clock moved instead of waiting, webhooks received and verified.
 */
import { type Sandbank, startSandbank, type WebhookReceiver } from 'sandbank/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

let sandbank: Sandbank;
let webhooks: WebhookReceiver;

beforeAll(async () => {
  sandbank = await startSandbank();
  webhooks = await sandbank.webhookReceiver();
}, 60_000); // starting takes about a second, more on a busy CI machine
afterAll(() => sandbank?.close(), 60_000);
beforeEach(async () => {
  await sandbank.reset();
  webhooks.clear();
});

/** The code under test would do this: ask Sandbank for a checkout of an order. */
async function createCheckout(secretKey: string, amount: number): Promise<{ id: string; state: string }> {
  const response = await fetch(`${sandbank.url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'USD', description: 'Order 1042' }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; state: string };
}

describe('checkout of an order', () => {
  it('announces the new collection by webhook', async () => {
    const collection = await createCheckout(sandbank.secretKey, 25);
    const event = await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
    expect(event.data.object).toMatchObject({ id: collection.id, amount: 25, currency: 'USD' });
  });

  it('expires an unpaid checkout after a day of simulated time', async () => {
    const collection = await createCheckout(sandbank.secretKey, 40);
    const clock = await sandbank.advanceClock({ seconds: 25 * 3600 });
    expect(clock.ran.length).toBeGreaterThan(0);
    const event = await webhooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
    expect(event.data.object).toMatchObject({ state: 'expired' });
  });

  it('keeps merchants apart', async () => {
    const other = await sandbank.newMerchant('Other shop');
    const theirs = await createCheckout(other.secretKey, 10);
    const response = await fetch(`${sandbank.url}/v1/collections/${theirs.id}`, {
      headers: { authorization: `Bearer ${sandbank.secretKey}` },
    });
    expect(response.status).toBe(404);
  });
});
