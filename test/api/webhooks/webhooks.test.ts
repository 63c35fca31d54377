import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listEventTypes } from '../../../src/modules/webhooks/webhooks.event-types.ts';
import { webhookDeliveries } from '../../../src/modules/webhooks/webhooks.table.ts';
import { createTestApp, PUBLIC_URL, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { headerMap, Receiver } from '../../support/receiver.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

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
beforeEach(() => {
  receiver.received.length = 0;
  receiver.status = 200;
  receiver.headers = {};
  receiver.body = null;
});

type Json = Record<string, unknown>;

async function endpoint(m: TestMerchant, body: Json = {}) {
  const res = await t.post(m, '/v1/webhook_endpoints', { url: receiver.url, ...body });
  expect(res.status).toBe(200);
  return res.body as Json & { id: string; secret: string };
}

async function frozenMerchant(): Promise<TestMerchant> {
  const m = await t.merchant();
  await t.post(m, '/v1/clock/freeze');
  return m;
}

const card = (number: string) => ({
  method: 'card',
  card: { number, exp_month: 12, exp_year: 2099, cvc: '123' },
});

describe('webhook endpoints', () => {
  it('creates with a whsec_ secret shown once, lists, updates and deletes', async () => {
    const m = await t.merchant();
    const created = await endpoint(m, { enabled_events: ['collection.succeeded'], description: 'orders' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      enabled: true,
      enabled_events: ['collection.succeeded'],
    });
    const fetched = await t.get(m, `/v1/webhook_endpoints/${created.id}`);
    expect(fetched.body.secret).toBeUndefined();
    const listed = await t.rest<{ data: Json[] }>('GET', '/v1/webhook_endpoints', { key: m.secretKey });
    expect(listed.body.data.map((e) => e.id)).toEqual([created.id]);
    const updated = await t.post(m, `/v1/webhook_endpoints/${created.id}`, {
      enabled_events: ['*'],
      enabled: false,
    });
    expect(updated.body).toMatchObject({
      enabled_events: ['*'],
      enabled: false,
      disabled_reason: 'disabled by the merchant',
    });
    const deleted = await t.rest<Json>('DELETE', `/v1/webhook_endpoints/${created.id}`, { key: m.secretKey });
    expect(deleted.body).toMatchObject({ id: created.id, deleted: true });
    expect((await t.get(m, `/v1/webhook_endpoints/${created.id}`)).status).toBe(404);
    const other = await t.merchant();
    const fresh = await endpoint(m);
    expect((await t.get(other, `/v1/webhook_endpoints/${fresh.id}`)).status).toBe(404);
    for (const [body, code] of [
      [{ url: 'ftp://x' }, 'url_invalid'],
      [{ url: receiver.url, enabled_events: ['Bad Type'] }, 'parameter_invalid'],
      [{ url: receiver.url, colour: 'red' }, 'parameter_unknown'],
    ] as const) {
      const res = await t.post(m, '/v1/webhook_endpoints', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body.error as Json).code).toBe(code);
    }
  });
});

describe('deliveries', () => {
  it('delivers every collection state change, signed so the standardwebhooks verifier accepts it', async () => {
    const m = await frozenMerchant();
    const all = await endpoint(m);
    const onlySucceeded = await endpoint(m, { enabled_events: ['collection.succeeded'] });
    await t.post(m, '/v1/collect', { amount: '10.50', currency: 'USD', reference: 'hooked' });
    await t.post(m, '/v1/simulate/collections/hooked/pay', card('4242424242424242'));
    await t.advance(m, 1);
    const byEndpoint = (secret: string) =>
      receiver.received.filter((r) => {
        try {
          new Webhook(secret).verify(r.body, headerMap(r.headers));
          return true;
        } catch {
          return false;
        }
      });
    const toAll = byEndpoint(all.secret);
    expect(toAll.map((r) => (JSON.parse(r.body) as Json).type).sort()).toEqual(
      [
        'balance_transaction.created',
        'card_payment.authorized',
        'card_payment.captured',
        'collection.created',
        'collection.succeeded',
      ].sort(),
    );
    const toOne = byEndpoint(onlySucceeded.secret);
    expect(toOne.map((r) => (JSON.parse(r.body) as Json).type)).toEqual(['collection.succeeded']);
    expect(receiver.received).toHaveLength(6);
    const created = toAll.find((r) => r.body.includes('"collection.created"'));
    expect(created?.body).toContain('"amount": 10.50');
    expect(created?.headers['webhook-id']).toMatch(/^evt_/);
    expect(Math.abs(Number(created?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const payload = new Webhook(all.secret).verify(
      created?.body ?? '',
      headerMap(created?.headers ?? {}),
    ) as Json;
    expect(payload).toMatchObject({
      object: 'event',
      type: 'collection.created',
      data: { object: { reference: 'hooked', state: 'pending' } },
    });
    // Tampering is caught by the verifier.
    expect(() =>
      new Webhook(all.secret).verify(
        (created?.body ?? '').replace('10.50', '99.99'),
        headerMap(created?.headers ?? {}),
      ),
    ).toThrow();
    // Delivered once: another advance sends nothing new.
    await t.advance(m, 3600);
    expect(receiver.received).toHaveLength(6);
  });

  it('retries on the schedule of clock time while the receiver fails, then fails; redelivery succeeds', async () => {
    const m = await frozenMerchant();
    const ep = await endpoint(m, { enabled_events: ['collection.created'] });
    receiver.status = 500;
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'flaky' });
    const eventId = String(
      ((await t.get(m, '/v1/events?type=collection.created')).body.data as Json[])[0]?.id,
    );
    await t.advance(m, 1);
    expect(receiver.received).toHaveLength(1);
    await t.advance(m, 4); // 5 s after the first attempt: the first retry is not due before 5 s (+ up to 10% jitter)
    expect(receiver.received.length).toBeLessThanOrEqual(2);
    await t.advance(m, 2 * 86_400);
    expect(receiver.received).toHaveLength(8); // the first attempt and 7 retries
    const log = await t.rest<{ data: (Json & { attempts: Json[] })[] }>(
      'GET',
      `/v1/events/${eventId}/deliveries`,
      { key: m.secretKey },
    );
    const delivery = log.body.data[0];
    expect(delivery).toMatchObject({ state: 'failed', attempt_count: 8, endpoint: ep.id });
    const attempts = delivery?.attempts ?? [];
    expect(attempts.map((a) => a.status)).toEqual(Array(8).fill(500));
    const gaps = attempts
      .slice(1)
      .map(
        (a, i) => (Date.parse(String(a.attempted_at)) - Date.parse(String(attempts[i]?.attempted_at))) / 1000,
      );
    const schedule = [5, 300, 1800, 7200, 18000, 36000, 36000];
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(schedule[i] ?? 0);
      expect(gap).toBeLessThanOrEqual((schedule[i] ?? 0) * 1.1 + 1);
    });
    expect(attempts.at(-1)?.next_retry_at).toBeNull();
    expect(attempts[0]?.response_body).toBe('status 500');

    receiver.status = 200;
    // The body is optional (every field of it is): none at all redelivers to every subscribed endpoint.
    const redelivered = await t.rest<Json>('POST', `/v1/events/${eventId}/redeliver`, { key: m.secretKey });
    expect(redelivered.status).toBe(200);
    await t.advance(m, 1);
    expect(receiver.received).toHaveLength(9);
    const after = await t.rest<{ data: Json[] }>('GET', `/v1/events/${eventId}/deliveries`, {
      key: m.secretKey,
    });
    expect(after.body.data[0]).toMatchObject({ state: 'delivered' });
  });

  it('a response body with NUL bytes is logged (replaced), not a failed batch resent forever', async () => {
    const m = await frozenMerchant();
    await endpoint(m, { enabled_events: ['collection.created'] });
    receiver.body = 'ok\u0000done';
    const col = await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'nul' });
    await t.advance(m, 1);
    const events = await t.rest<{ data: Json[] }>('GET', `/v1/events?object_id=${col.body.id}`, {
      key: m.secretKey,
    });
    const log = await t.rest<{ data: (Json & { attempts: Json[] })[] }>(
      'GET',
      `/v1/events/${events.body.data[0]?.id}/deliveries`,
      { key: m.secretKey },
    );
    expect(log.body.data[0]).toMatchObject({ state: 'delivered' });
    expect(log.body.data[0]?.attempts[0]?.response_body).toBe('ok\uFFFDdone');
    await t.advance(m, 3600);
    expect(receiver.received).toHaveLength(1);
  });

  it('a 410 disables the endpoint at once; redirects are not followed', async () => {
    const m = await frozenMerchant();
    const ep = await endpoint(m, { enabled_events: ['collection.created'] });
    receiver.status = 302;
    receiver.headers = { location: 'http://127.0.0.1:9/elsewhere' };
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'moved' });
    await t.advance(m, 1);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await t.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, ep.id));
    expect(delivery).toMatchObject({ state: 'pending', lastStatus: 302, attempts: 1 });
    receiver.status = 410;
    receiver.headers = {};
    await t.advance(m, 10);
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'the receiver answered 410 Gone',
    });
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'after-gone' });
    await t.advance(m, 3600);
    expect(receiver.received).toHaveLength(2);
  });

  it('an endpoint failing for 5 days of clock time is disabled', async () => {
    const m = await frozenMerchant();
    const ep = await endpoint(m, { enabled_events: ['collection.created'] });
    receiver.status = 503;
    for (let day = 0; day < 3; day++) {
      await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: `down-${day}` });
      await t.advance(m, 2 * 86_400 + 60);
    }
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'deliveries failed for 5 days',
    });
  });

  it('rotating the secret signs with both for 24 hours of clock time, then with the new one only', async () => {
    const m = await frozenMerchant();
    const ep = await endpoint(m, { enabled_events: ['webhook.test', 'collection.created'] });
    const rotated = await t.post(m, `/v1/webhook_endpoints/${ep.id}/rotate_secret`);
    const newSecret = String(rotated.body.secret);
    expect(newSecret).not.toBe(ep.secret);
    const tested = await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`);
    expect(tested.body).toMatchObject({ type: 'webhook.test' });
    await t.advance(m, 1);
    const first = receiver.received[0];
    expect(headerMap(first?.headers ?? {})['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [ep.secret, newSecret])
      new Webhook(secret).verify(first?.body ?? '', headerMap(first?.headers ?? {}));
    await t.advance(m, 24 * 3600);
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'after-rotation' });
    await t.advance(m, 1);
    const second = receiver.received[1];
    expect(headerMap(second?.headers ?? {})['webhook-signature']?.split(' ')).toHaveLength(1);
    new Webhook(newSecret).verify(second?.body ?? '', headerMap(second?.headers ?? {}));
    expect(() =>
      new Webhook(ep.secret).verify(second?.body ?? '', headerMap(second?.headers ?? {})),
    ).toThrow();
  });

  it('nothing is delivered for a request that failed and wrote nothing', async () => {
    const m = await frozenMerchant();
    await endpoint(m);
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'once' });
    const duplicate = await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'once' });
    expect(duplicate.status).toBe(409);
    await t.advance(m, 1);
    expect(receiver.types()).toEqual(['collection.created']);
  });
});

describe('events API', () => {
  it('lists events newest first, filters by type and object, and gets one', async () => {
    const m = await t.merchant();
    const col = await t.post(m, '/v1/collect', { amount: '2.25', currency: 'USD', reference: 'ev' });
    await t.post(m, '/v1/simulate/collections/ev/pay', card('4242424242424242'));
    const all = await t.rest<{ data: Json[] }>('GET', '/v1/events', { key: m.secretKey });
    expect(all.body.data.map((e) => e.type)).toEqual([
      'collection.succeeded',
      'balance_transaction.created',
      'card_payment.captured',
      'card_payment.authorized',
      'collection.created',
    ]);
    // The ledger's side of the payment: the amount lands in pending.
    const credited = await t.rest<Json>('GET', `/v1/events/${all.body.data[1]?.id}`, { key: m.secretKey });
    expect(credited.body).toMatchObject({
      type: 'balance_transaction.created',
      data: { object: { object: 'balance_transaction', state: 'posted', currency: 'USD' } },
    });
    expect(credited.text).toContain('"pending": 2.25');
    const byObject = await t.rest<{ data: Json[] }>('GET', `/v1/events?object_id=${col.body.id}`, {
      key: m.secretKey,
    });
    expect(byObject.body.data.map((e) => e.type)).toEqual(['collection.succeeded', 'collection.created']);
    const one = await t.get(m, `/v1/events/${all.body.data[4]?.id}`);
    expect(one.body).toMatchObject({
      object: 'event',
      type: 'collection.created',
      data: { object: { state: 'pending' } },
    });
    expect(one.text).toContain('"amount": 2.25');
    const other = await t.merchant();
    expect((await t.get(other, `/v1/events/${all.body.data[0]?.id}`)).status).toBe(404);
  });
});

describe('event types', () => {
  it("lists every type the server emits, each with its payload's schema in the OpenAPI document", async () => {
    const m = await frozenMerchant();
    const listed = await t.rest<{ data: { object: string; type: string; schema: { $ref: string } }[] }>(
      'GET',
      '/v1/event_types',
      { key: m.secretKey },
    );
    expect(listed.body.data.map((entry) => entry.type)).toEqual(listEventTypes());
    const documentUrl = `${PUBLIC_URL}/v1/openapi.json`;
    const document = (await t.rest('GET', '/v1/openapi.json')).body;
    const ajv = addFormats(new Ajv2020({ strict: false, validateSchema: false }));
    ajv.addSchema(document, documentUrl);
    const schemaOf = (type: string) => {
      const entry = listed.body.data.find((candidate) => candidate.type === type);
      expect(entry?.schema.$ref).toBe(
        `${documentUrl}#/webhooks/${type}/post/requestBody/content/application~1json/schema`,
      );
      return ajv.compile(entry?.schema ?? {});
    };
    // The pointer is the schema a delivery of that type is checked with: a real webhook.test event
    // (the answer of /test, the body a receiver gets) passes its own type's and no other's.
    const ep = await endpoint(m, { enabled_events: ['webhook.test'] });
    const { status: _status, ...event } = (await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`)).body;
    expect(schemaOf('webhook.test')(event)).toBe(true);
    expect(schemaOf('card_payment.authorized')(event)).toBe(false);
    expect(schemaOf('webhook.test')({ ...event, type: 'collection.created' })).toBe(false);
    await t.advance(m, 1);
    expect(receiver.received.map((r) => JSON.parse(r.body))).toEqual([event]);
    for (const { type } of listed.body.data) expect(typeof schemaOf(type), type).toBe('function');
  });
});

describe('webhook endpoints over GraphQL', () => {
  it('creates (secret shown once), lists, updates, rotates, tests and deletes with typed errors', async () => {
    const m = await t.merchant();
    const created = await t.gql<{ createWebhookEndpoint: Json }>(
      `mutation($url: String!) { createWebhookEndpoint(url: $url, enabledEvents: ["collection.succeeded"]) {
        __typename ... on MutationCreateWebhookEndpointSuccess { data { id secret enabledEvents enabled } } } }`,
      { url: receiver.url },
      { key: m.secretKey },
    );
    const data = (created.data.createWebhookEndpoint as { data: Json }).data;
    expect(String(data.secret)).toMatch(/^whsec_/);
    expect(data).toMatchObject({ enabledEvents: ['collection.succeeded'], enabled: true });
    const listed = await t.gql<{ webhookEndpoints: { edges: { node: Json }[] } }>(
      '{ webhookEndpoints { edges { node { id secret } } } }',
      {},
      { key: m.secretKey },
    );
    expect(listed.data.webhookEndpoints.edges).toEqual([{ node: { id: data.id, secret: null } }]);
    const updated = await t.gql<{ updateWebhookEndpoint: Json }>(
      `mutation($id: ID!) { updateWebhookEndpoint(id: $id, enabled: false) { ... on MutationUpdateWebhookEndpointSuccess { data { enabled disabledReason } } } }`,
      { id: data.id },
      { key: m.secretKey },
    );
    expect(updated.data.updateWebhookEndpoint).toEqual({
      data: { enabled: false, disabledReason: 'disabled by the merchant' },
    });
    const rotated = await t.gql<{ rotateWebhookSecret: { data: Json } }>(
      `mutation($id: ID!) { rotateWebhookSecret(id: $id) { ... on MutationRotateWebhookSecretSuccess { data { secret } } } }`,
      { id: data.id },
      { key: m.secretKey },
    );
    expect(rotated.data.rotateWebhookSecret.data.secret).not.toBe(data.secret);
    const tested = await t.gql<{ testWebhookEndpoint: { data: string } }>(
      `mutation($id: ID!) { testWebhookEndpoint(id: $id) { ... on MutationTestWebhookEndpointSuccess { data } } }`,
      { id: data.id },
      { key: m.secretKey },
    );
    expect(tested.data.testWebhookEndpoint.data).toMatch(/^evt_/);
    const bad = await t.gql<{ createWebhookEndpoint: Json }>(
      'mutation { createWebhookEndpoint(url: "ftp://nope") { ... on SandbankError { code param } } }',
      {},
      { key: m.secretKey },
    );
    expect(bad.data.createWebhookEndpoint).toEqual({ code: 'url_invalid', param: 'url' });
    const deleted = await t.gql<{ deleteWebhookEndpoint: Json }>(
      `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { __typename } }`,
      { id: data.id },
      { key: m.secretKey },
    );
    expect(deleted.data.deleteWebhookEndpoint).toEqual({
      __typename: 'MutationDeleteWebhookEndpointSuccess',
    });
    const gone = await t.gql<{ webhookEndpoint: Json | null }>(
      'query($id: ID!) { webhookEndpoint(id: $id) { id } }',
      { id: data.id },
      { key: m.secretKey },
    );
    expect(gone.data.webhookEndpoint).toBeNull();
  });
});

describe('events over GraphQL', () => {
  it('lists the merchant events as a connection with filters and gets one', async () => {
    const m = await t.merchant();
    const col = await t.post(m, '/v1/collect', { amount: 4, currency: 'USD', reference: 'gql-ev' });
    await t.post(m, '/v1/simulate/collections/gql-ev/pay', card('4242424242424242'));
    const res = await t.gql<{ events: { edges: { node: Json }[] }; byObject: { edges: { node: Json }[] } }>(
      `query($id: String!) {
        events(first: 10) { edges { node { type objectId } } }
        byObject: events(objectId: $id, type: "collection.succeeded") { edges { node { id type data } } }
      }`,
      { id: col.body.id },
      { key: m.secretKey },
    );
    expect(res.data.events.edges.map((e) => e.node.type)).toEqual([
      'collection.succeeded',
      'balance_transaction.created',
      'card_payment.captured',
      'card_payment.authorized',
      'collection.created',
    ]);
    const [only] = res.data.byObject.edges;
    expect(only?.node).toMatchObject({
      type: 'collection.succeeded',
      data: { object: { reference: 'gql-ev', state: 'succeeded' } },
    });
    const one = await t.gql<{ event: Json | null }>(
      'query($id: ID!) { event(id: $id) { type } }',
      { id: only?.node.id },
      { key: m.secretKey },
    );
    expect(one.data.event).toEqual({ type: 'collection.succeeded' });
    const other = await t.merchant();
    const hidden = await t.gql<{ event: Json | null }>(
      'query($id: ID!) { event(id: $id) { type } }',
      { id: only?.node.id },
      { key: other.secretKey },
    );
    expect(hidden.data.event).toBeNull();
  });
});
