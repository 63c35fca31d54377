// sandbank/testing with Node's own test runner (node --test): no TypeScript, no framework.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSandbank } from 'sandbank/testing';

let sandbank;
let webhooks;

// node:test waits for a hook without limit; a start-up that hangs should fail the run instead.
before(
  async () => {
    sandbank = await startSandbank();
    webhooks = await sandbank.webhookReceiver({ events: ['collection.created', 'collection.expired'] });
  },
  { timeout: 60_000 },
);
after(() => sandbank?.close(), { timeout: 60_000 });

async function collect(amount) {
  const response = await fetch(`${sandbank.url}/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbank.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, currency: 'USD' }),
  });
  assert.equal(response.status, 200);
  return response.json();
}

test('a checkout nobody pays expires after a day of simulated time', async () => {
  const collection = await collect(12.5);
  const created = await webhooks.waitFor('collection.created', (e) => e.data.object.id === collection.id);
  assert.equal(created.data.object.amount, 12.5);

  await sandbank.advanceClock({ to: new Date(Date.now() + 25 * 3600 * 1000) });
  const expired = await webhooks.waitFor('collection.expired', (e) => e.data.object.id === collection.id);
  assert.equal(expired.data.object.state, 'expired');
});

test('reset starts the merchant over', async () => {
  await collect(5);
  const { deleted } = await sandbank.reset();
  assert.ok(deleted.collections >= 1);
  const response = await fetch(`${sandbank.url}/v1/collections`, {
    headers: { authorization: `Bearer ${sandbank.secretKey}` },
  });
  assert.deepEqual((await response.json()).data, []);
});
