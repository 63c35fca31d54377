// sandbank/testing with Node's own test runner: no TypeScript, no framework. node --test has no global
// setup on Node 20, so the run's one Sandbank comes from a wrapper that starts it, runs the tests with
// its url in SANDBANK_URL and stops it after:
//   npx sandbank test -- node --test
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { sandbankMerchant } from 'sandbank/testing';

// Milliseconds: a sign-up (POST /v1/merchants). Its keys, clock, objects and webhooks are this file's.
const shop = await sandbankMerchant({ name: 'Checkout tests' });
const webhooks = await shop.webhookReceiver({ events: ['collection.created', 'collection.expired'] });
after(() => shop.close());
beforeEach(async () => {
  await shop.reset();
  webhooks.clear();
});

async function collect(amount) {
  const response = await fetch(`${shop.url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'USD' }),
  });
  assert.equal(response.status, 200);
  return response.json();
}

test('a checkout nobody pays expires after a day of simulated time', async () => {
  const collection = await collect(12.5);
  const created = await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
  assert.equal(created.data.object.amount, 12.5);

  await shop.advanceClock({ to: new Date(Date.now() + 25 * 3600 * 1000) });
  const expired = await webhooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
  assert.equal(expired.data.object.state, 'expired');
});

test('reset starts the merchant over', async () => {
  await collect(5);
  const { deleted } = await shop.reset();
  assert.ok(deleted.collections >= 1);
  const response = await fetch(`${shop.url}/v1/collections`, {
    headers: { authorization: `Bearer ${shop.secretKey}` },
  });
  assert.deepEqual((await response.json()).data, []);
});
