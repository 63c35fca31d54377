import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookTransport } from '../../../src/kernel/webhook-transport.ts';
import { seededDraws } from '../../../src/modules/chaos/chaos.grammar.ts';
import { parseWebhookChaos, planWebhookChaos } from '../../../src/modules/chaos/chaos.webhook-grammar.ts';
import { attemptAll } from '../../../src/modules/webhooks/webhooks.attempt.ts';
import { lease, unleased } from '../../../src/modules/webhooks/webhooks.lease.ts';
import { createMetrics } from '../../../src/observability.ts';
import { signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

/**
 * Webhook chaos (docs/guide/chaos.md): the merchant's webhook_faults send events twice, hold them, or
 * hold them back behind later ones; each fault is marked on its attempt (REST, GraphQL, dashboard)
 * and counted in /metrics, and nothing is ever dropped.
 */

const metrics = createMetrics();
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp({ metrics });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.status = 200;
});

interface Attempt {
  status: number | null;
  chaos: string | null;
  chaos_fault: string | null;
}
interface Delivery {
  id: string;
  state: string;
  attempt_count: number;
  held_until: string | null;
  attempts: Attempt[];
}

async function setup(webhookFaults: string): Promise<{ m: TestMerchant; endpointId: string }> {
  const m = await t.merchant();
  await t.post(m, '/v1/clock/freeze');
  const endpoint = await t.post(m, '/v1/webhook_endpoints', { url: receiver.url });
  expect(endpoint.status).toBe(200);
  const set = await t.post(m, '/v1/simulate/chaos', { webhook_faults: webhookFaults });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  return { m, endpointId: endpoint.body.id as string };
}

/** A webhook.test event for the endpoint: one delivery, queued now. */
async function testEvent(m: TestMerchant, endpointId: string): Promise<string> {
  const res = await t.post(m, `/v1/webhook_endpoints/${endpointId}/test`);
  expect(res.status).toBe(200);
  return res.body.id as string;
}

async function deliveryOf(m: TestMerchant, eventId: string): Promise<Delivery> {
  const res = await t.rest<{ data: Delivery[] }>('GET', `/v1/events/${eventId}/deliveries`, {
    key: m.secretKey,
  });
  expect(res.status).toBe(200);
  expect(res.body.data).toHaveLength(1);
  return res.body.data[0] as Delivery;
}

async function count(labels: string): Promise<number> {
  const text = await (await t.app.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`sandbank_chaos_injected_total{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** A seed whose first plans (one per delivery, in order) satisfy `wanted`. */
function seedFor(
  faults: string,
  wanted: (plans: ReturnType<typeof planWebhookChaos>[]) => boolean,
  n: number,
) {
  const spec = parseWebhookChaos(faults, 'webhook_faults');
  for (let seed = 0; seed < 10_000; seed++) {
    const plans = Array.from({ length: n }, (_, i) => planWebhookChaos(spec, seededDraws(seed, i)));
    if (wanted(plans)) return seed;
  }
  throw new Error('no seed found');
}

const webhookIds = () => receiver.received.map((r) => r.headers['webhook-id']);

describe('webhook chaos', () => {
  it('duplicates: a delivered event is sent twice with the same webhook-id, marked and counted', async () => {
    const { m, endpointId } = await setup('duplicate=1');
    const before = await count('fault="webhook_duplicate",status="200"');
    const eventId = await testEvent(m, endpointId);
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect(webhookIds()).toEqual([eventId, eventId]);
    expect(receiver.received[0]?.body).toBe(receiver.received[1]?.body);
    const delivery = await deliveryOf(m, eventId);
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempt_count).toBe(2);
    expect(delivery.attempts.map((a) => [a.status, a.chaos, a.chaos_fault])).toEqual([
      [200, null, null],
      [200, 'duplicate', 'duplicate'],
    ]);
    expect(await count('fault="webhook_duplicate",status="200"')).toBe(before + 1);
    // GraphQL shows the same log.
    const gql = await t.gql<{ node: { attempts: { chaos: string | null; chaosFault: string | null }[] } }>(
      `{ node(id: "${delivery.id}") { ... on WebhookDelivery { attempts { chaos chaosFault } } } }`,
      {},
      { key: m.secretKey },
    );
    expect(gql.data.node.attempts).toEqual([
      { chaos: null, chaosFault: null },
      { chaos: 'duplicate', chaosFault: 'duplicate' },
    ]);
    // A failing receiver gets no duplicate: the event is retried on the schedule instead.
    receiver.received.length = 0;
    receiver.status = 500;
    const failing = await testEvent(m, endpointId);
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect(webhookIds()).toEqual([failing]);
  });

  it('delays: a delivery is held the real time asked before it is sent, and the attempt says so', async () => {
    const { m, endpointId } = await setup('delay=1; delay_for=250ms');
    const before = await count('fault="webhook_delay",status="200"');
    const eventId = await testEvent(m, endpointId);
    const started = performance.now();
    // The advance delivers the window's deliveries, waiting for the held one.
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(webhookIds()).toEqual([eventId]);
    const delivery = await deliveryOf(m, eventId);
    expect(delivery.state).toBe('delivered');
    expect(delivery.held_until).toBeNull();
    expect(delivery.attempts.map((a) => [a.chaos, a.chaos_fault])).toEqual([['delayed 250ms', 'delay']]);
    expect(await count('fault="webhook_delay",status="200"')).toBe(before + 1);
  });

  it('a long delay is kept on the pending delivery (durable) and released at its real time, read with an injected now', async () => {
    const { m, endpointId } = await setup('delay=1; delay_for=20s');
    const eventId = await testEvent(m, endpointId);
    const mine = (now: Date) =>
      sql`SELECT d.id, d.next_attempt_at AS clock_now FROM webhook_deliveries d
        WHERE d.merchant_id = ${m.id} AND d.state = 'pending' AND ${unleased(now)}
        FOR UPDATE OF d SKIP LOCKED`;
    const transport = new WebhookTransport();
    const drawnAt = Date.now();
    const claimed = await lease(t.database.db, mine(new Date()));
    expect(claimed).toHaveLength(1);
    // Drawn a delay: held, not sent, its lease given up.
    expect(await attemptAll(t.database.db, transport, claimed)).toEqual([]);
    expect(receiver.received).toHaveLength(0);
    const held = await deliveryOf(m, eventId);
    expect(held.state).toBe('pending');
    expect(held.attempts).toEqual([]);
    const heldUntil = Date.parse(held.held_until ?? '');
    expect(heldUntil).toBeGreaterThanOrEqual(drawnAt + 20_000);
    expect(heldUntil).toBeLessThanOrEqual(Date.now() + 20_000);
    // Any worker (another process after a crash too) leaves it alone until then…
    expect(await lease(t.database.db, mine(new Date(heldUntil - 1)))).toEqual([]);
    // …and takes it once its time has come: sent once, marked delayed.
    const released = await lease(t.database.db, mine(new Date(heldUntil)));
    expect(released.map((c) => c.id)).toEqual([held.id]);
    const results = await attemptAll(t.database.db, transport, released);
    expect(results).toMatchObject([{ deliveryId: held.id, state: 'delivered', status: 200 }]);
    expect(webhookIds()).toEqual([eventId]);
    const after = await deliveryOf(m, eventId);
    expect(after.attempts.map((a) => a.chaos)).toEqual(['delayed 20000ms']);
    expect(after.held_until).toBeNull();
  });

  it("out of order: a delivery held back is sent after a later event of its endpoint, marked 'reordered'", async () => {
    const faults = 'reorder=0.5; reorder_max=10s';
    const seed = seedFor(faults, ([a, b]) => a?.hold?.kind === 'reorder' && b?.hold === undefined, 2);
    const { m, endpointId } = await setup(`${faults}; seed=${seed}`);
    const before = await count('fault="webhook_reorder",status="200"');
    const first = await testEvent(m, endpointId);
    const second = await testEvent(m, endpointId);
    const started = performance.now();
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    // Released by the later event's delivery, not by its 10 s bound.
    expect(performance.now() - started).toBeLessThan(9_000);
    expect(webhookIds()).toEqual([second, first]);
    expect((await deliveryOf(m, first)).attempts.map((a) => [a.chaos, a.chaos_fault])).toEqual([
      ['reordered', 'reorder'],
    ]);
    expect((await deliveryOf(m, second)).attempts.map((a) => a.chaos)).toEqual([null]);
    expect(await count('fault="webhook_reorder",status="200"')).toBe(before + 1);
  });

  it('a reorder with no later event is held at most reorder_max, then sent: never dropped', async () => {
    const { m, endpointId } = await setup('reorder=1; reorder_max=150ms');
    const eventId = await testEvent(m, endpointId);
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    expect(webhookIds()).toEqual([eventId]);
    expect((await deliveryOf(m, eventId)).attempts.map((a) => a.chaos)).toEqual([
      'held back 150ms (no later event passed it)',
    ]);
  });

  it('replays the same faults for the same seed', async () => {
    const faults = 'duplicate=0.5; delay=0.3; delay_for=1ms; seed=4242';
    const run = async (m: TestMerchant, endpointId: string) => {
      const events: string[] = [];
      for (let i = 0; i < 6; i++) events.push(await testEvent(m, endpointId));
      await t.post(m, '/v1/clock/advance', { seconds: 1 });
      const labels: (string | null)[][] = [];
      for (const id of events) labels.push((await deliveryOf(m, id)).attempts.map((a) => a.chaos));
      return labels;
    };
    const a = await setup(faults);
    const first = await run(a.m, a.endpointId);
    expect(first.flat()).toContain('duplicate');
    const b = await setup(faults);
    expect(await run(b.m, b.endpointId)).toEqual(first);
  });
});

describe('the webhook chaos setting', () => {
  it('is set, read and cleared apart from the API faults, in canonical form; bad input is a 400 that changes nothing', async () => {
    const m = await t.merchant();
    const set = await t.post(m, '/v1/simulate/chaos', { webhook_faults: ' DUPLICATE=.1; delay=0.2;seed=3 ' });
    expect(set.body).toMatchObject({
      object: 'chaos',
      faults: null,
      webhook_faults: 'duplicate=0.1; delay=0.2; delay_for=5000ms; seed=3',
    });
    // Setting the API faults keeps the webhook faults.
    const both = await t.post(m, '/v1/simulate/chaos', { faults: 'error=0.1' });
    expect(both.body).toMatchObject({
      faults: 'error=0.1; status=503',
      webhook_faults: 'duplicate=0.1; delay=0.2; delay_for=5000ms; seed=3',
    });
    for (const [body, param] of [
      [{ webhook_faults: 'duplicate=2' }, 'webhook_faults'],
      [{ webhook_faults: 'delay=0.6; reorder=0.6' }, 'webhook_faults'],
      [{ webhook_faults: 'delay_for=1s' }, 'webhook_faults'],
      [{ webhook_faults: 'drop=1' }, 'webhook_faults'],
      [{ faults: 'error=1', webhook_faults: 'delay_for=40s; delay=1' }, 'webhook_faults'],
    ] as const) {
      const res = await t.post(m, '/v1/simulate/chaos', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatchObject({ code: 'parameter_invalid', param });
    }
    const empty = await t.post(m, '/v1/simulate/chaos', {});
    expect(empty.status).toBe(400);
    expect((await t.rest('GET', '/v1/simulate/chaos', { key: m.secretKey })).body).toMatchObject({
      faults: 'error=0.1; status=503',
      webhook_faults: 'duplicate=0.1; delay=0.2; delay_for=5000ms; seed=3',
    });
    // GraphQL reads and sets the same setting.
    const gql = await t.gql<{ setChaos: { data: { faults: string | null; webhookFaults: string | null } } }>(
      'mutation { setChaos(webhookFaults: "reorder=0.3") { ... on MutationSetChaosSuccess { data { faults webhookFaults } } } }',
      {},
      { key: m.secretKey },
    );
    expect(gql.data.setChaos.data).toEqual({
      faults: 'error=0.1; status=503',
      webhookFaults: 'reorder=0.3; reorder_max=5000ms',
    });
    const cleared = await t.post(m, '/v1/simulate/chaos', { faults: null, webhook_faults: 'none' });
    expect(cleared.body).toMatchObject({ faults: null, webhook_faults: null, updated_at: null });
  });

  it('is set from the keys page, and the deliveries page marks the chaos of each attempt', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/clock/freeze');
    const endpoint = await t.post(m, '/v1/webhook_endpoints', { url: receiver.url });
    const browser = await signedIn(() => t, m);
    const saved = await browser.post('/dashboard/chaos', { faults: '', webhook_faults: 'duplicate=1' });
    expect(saved.status).toBe(303);
    const keys = await browser.get('/dashboard/keys');
    expect(keys.html).toContain('data-testid="chaos-webhook-faults"');
    expect(keys.html).toContain('Webhook deliveries: <code>duplicate=1</code>');
    await testEvent(m, endpoint.body.id as string);
    await t.post(m, '/v1/clock/advance', { seconds: 1 });
    const page = await browser.get(`/dashboard/webhooks/${endpoint.body.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/data-testid="attempt-chaos"[^>]*>chaos: duplicate</);
  });
});
