// sandbank/testing in a Jest suite. sandbank/testing is an ES module: run Jest with Node's VM modules,
//   NODE_OPTIONS=--experimental-vm-modules npx jest
// (Jest's describe, test, expect, beforeAll… are the globals it provides.)
import { startSandbank } from 'sandbank/testing';

let sandbank;
let webhooks;

// Jest gives a hook 5 seconds; starting a server takes about one, more on a busy CI machine. A hook
// that timed out would leave the server it was starting running, and Jest waiting for it to stop.
beforeAll(async () => {
  sandbank = await startSandbank();
  webhooks = await sandbank.webhookReceiver();
}, 60_000);
afterAll(() => sandbank?.close(), 60_000);
beforeEach(async () => {
  await sandbank.reset();
  webhooks.clear();
});

/** The code under test would do this: ask Sandbank for a checkout of an order. */
async function createCheckout(secretKey, amount) {
  const response = await fetch(`${sandbank.url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'USD', description: 'Order 1042' }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe('checkout of an order', () => {
  test('announces the new collection by webhook', async () => {
    const collection = await createCheckout(sandbank.secretKey, 25);
    const event = await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
    expect(event.data.object).toMatchObject({ id: collection.id, amount: 25, currency: 'USD' });
  });

  test('expires an unpaid checkout after a day of simulated time', async () => {
    const collection = await createCheckout(sandbank.secretKey, 40);
    await sandbank.advanceClock({ seconds: 25 * 3600 });
    const event = await webhooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
    expect(event.data.object.state).toBe('expired');
  });

  test('keeps merchants apart', async () => {
    const other = await sandbank.newMerchant('Other shop');
    const theirs = await createCheckout(other.secretKey, 10);
    const response = await fetch(`${sandbank.url}/v1/collections/${theirs.id}`, {
      headers: { authorization: `Bearer ${sandbank.secretKey}` },
    });
    expect(response.status).toBe(404);
  });
});
