/**
 * The dashboard's webhook pages in-process: endpoints created and edited from forms, the
 * signing secret shown once, test events, and the delivery log of an endpoint against a real
 * loopback receiver — failed attempts with their status and (escaped) body, then a redelivery that
 * succeeds. Also the service, REST and GraphQL additions the pages stand on: an endpoint's
 * deliveries, redelivery over GraphQL, and the catalogue of event types.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventTypeGroups, listEventTypes } from '../../../src/modules/webhooks/webhooks.event-types.ts';
import { type DashboardBrowser, type DashboardPage, signedIn } from '../../support/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { headerMap, Receiver } from '../../support/receiver.ts';

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
  receiver.body = null;
});
const app = () => t;

type Json = Record<string, unknown>;
type Attempt = { status: number | null; response_body: string | null; error: string | null };
type Delivery = Json & { attempts: Attempt[] };

async function frozenMerchant(): Promise<{ m: TestMerchant; browser: DashboardBrowser }> {
  const m = await t.merchant();
  await t.post(m, '/v1/clock/freeze');
  return { m, browser: await signedIn(app, m) };
}

/** A form POST with repeated fields (checkboxes), as a browser sends it, with the page's CSRF token. */
async function postForm(
  browser: DashboardBrowser,
  path: string,
  fields: [string, string][],
): Promise<DashboardPage> {
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await t.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams([['_csrf', browser.csrf()], ...fields]).toString(),
  });
  return {
    status: response.status,
    headers: response.headers,
    html: await response.text(),
    location: response.headers.get('location'),
  };
}

async function createEndpoint(m: TestMerchant, body: Json = {}) {
  const res = await t.post(m, '/v1/webhook_endpoints', { url: receiver.url, ...body });
  expect(res.status).toBe(200);
  return res.body as Json & { id: string; secret: string };
}

const secretShown = (html: string) => /data-testid="endpoint-secret">(whsec_[^<]+)</.exec(html)?.[1] ?? null;
const count = (html: string, testId: string) => html.split(`data-testid="${testId}"`).length - 1;
const attemptStatuses = (html: string) =>
  [...html.matchAll(/data-testid="attempt-status">([^<]*)</g)].map((match) => match[1]);
const deliveryStates = (html: string) =>
  [...html.matchAll(/data-testid="delivery-state"><span[^>]*>([a-z]+)</g)].map((match) => match[1]);

describe('webhook endpoints from the dashboard', () => {
  it('creates an endpoint from the form; its secret is shown once and signs the test delivery', async () => {
    const { m, browser } = await frozenMerchant();
    const list = await browser.get('/dashboard/webhooks');
    expect(list.status).toBe(200);
    expect(list.html).toContain('data-testid="no-endpoints"');
    for (const type of [
      '*',
      'collection.succeeded',
      'transfer.returned',
      'fx_settlement.paid',
      'webhook.test',
    ])
      expect(list.html).toContain(`name="enabled_events[]" value="${type}"`);

    const refused = await postForm(browser, '/dashboard/webhooks', [
      ['url', receiver.url],
      ['description', 'orders <img src=x onerror=alert(1)>'],
      ['enabled_events[]', 'collection.created'],
      ['enabled_events[]', 'webhook.test'],
      ['enabled_events[]', 'payout.paid, custom.thing'],
    ]);
    // Only event types the sandbox sends (or "*") may be named: the form comes back saying so.
    expect(refused.status).toBe(303);
    expect(refused.location).toBe('/dashboard/webhooks');
    expect((await browser.get('/dashboard/webhooks')).html).toContain('/v1/event_types');
    const created = await postForm(browser, '/dashboard/webhooks', [
      ['url', receiver.url],
      ['description', 'orders <img src=x onerror=alert(1)>'],
      ['enabled_events[]', 'collection.created'],
      ['enabled_events[]', 'webhook.test'],
      ['enabled_events[]', 'payout.paid'],
    ]);
    expect(created.status).toBe(303);
    const id = /^\/dashboard\/webhooks\/(we_\w+)$/.exec(created.location ?? '')?.[1] ?? '';
    expect(id).not.toBe('');
    const api = await t.get(m, `/v1/webhook_endpoints/${id}`);
    expect(api.body).toMatchObject({
      url: receiver.url,
      enabled: true,
      enabled_events: ['collection.created', 'webhook.test', 'payout.paid'],
      description: 'orders <img src=x onerror=alert(1)>',
    });

    const page = await browser.get(created.location ?? '');
    expect(page.html).toContain('data-testid="flash-notice"');
    const secret = secretShown(page.html);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(page.html).toContain('orders &lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).not.toContain('<img src=x');
    const again = await browser.get(created.location ?? '');
    expect(secretShown(again.html)).toBeNull();
    expect(again.html).not.toContain(secret);

    const listed = await browser.get('/dashboard/webhooks');
    expect(count(listed.html, 'endpoint-row')).toBe(1);
    expect(listed.html).toContain(`href="/dashboard/webhooks/${id}"`);
    expect(listed.html).not.toContain('<img src=x');

    const tested = await browser.post(`/dashboard/webhooks/${id}/test`);
    expect(tested.location).toBe(`/dashboard/webhooks/${id}`);
    await t.advance(m, 1);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const payload = new Webhook(secret ?? '').verify(
      delivery?.body ?? '',
      headerMap(delivery?.headers ?? {}),
    );
    expect(payload).toMatchObject({ type: 'webhook.test', data: { object: { id, url: receiver.url } } });

    const log = await browser.get(`/dashboard/webhooks/${id}`);
    expect(count(log.html, 'delivery-row')).toBe(1);
    expect(log.html).toContain('data-testid="delivery-event-type">webhook.test<');
    expect(deliveryStates(log.html)).toEqual(['delivered']);
    expect(attemptStatuses(log.html)).toEqual(['200']);
    expect(log.html).toContain('<code data-testid="attempt-response">status 200</code>');
    const eventId = String(payload && (payload as Json).id);
    expect(log.html).toContain(`href="/dashboard/events/${eventId}"`);
  });

  it('edits url, description, events and enabled; a bad url refills the form; rotate shows a new secret', async () => {
    const { m, browser } = await frozenMerchant();
    const ep = await createEndpoint(m, { description: 'old' });
    const path = `/dashboard/webhooks/${ep.id}`;
    const edited = await postForm(browser, path, [
      ['url', `${receiver.url}?v=2`],
      ['description', ''],
      ['was_enabled', 'true'],
      ['enabled', 'false'],
      ['enabled_events[]', 'collection.succeeded'],
      ['enabled_events[]', 'transfer.returned'],
    ]);
    expect(edited.location).toBe(path);
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
      url: `${receiver.url}?v=2`,
      description: null,
      enabled_events: ['collection.succeeded', 'transfer.returned'],
      enabled: false,
      disabled_reason: 'disabled by the merchant',
    });
    const page = await browser.get(path);
    expect(page.html).toContain('data-testid="endpoint-state">disabled<');
    expect(page.html).toContain('value="transfer.returned" checked');
    expect(page.html).not.toContain('value="*" checked');
    expect(page.html).not.toMatch(/name="enabled" value="true" checked/);

    await postForm(browser, path, [
      ['url', receiver.url],
      ['enabled', 'true'],
      ['enabled_events[]', '*'],
    ]);
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
      enabled: true,
      enabled_events: ['*'],
      disabled_reason: null,
    });

    const bad = await postForm(browser, path, [
      ['url', 'ftp://nope.example'],
      ['enabled', 'true'],
      ['enabled_events[]', 'refund.failed'],
    ]);
    expect(bad.location).toBe(path);
    const refilled = await browser.get(path);
    expect(refilled.html).toContain('data-testid="flash-error"');
    expect(refilled.html).toContain('value="ftp://nope.example"');
    expect(refilled.html).toContain('value="refund.failed" checked');
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body.url).toBe(receiver.url);

    const none = await postForm(browser, path, [
      ['url', receiver.url],
      ['enabled_events[]', ''],
    ]);
    expect(none.location).toBe(path);
    expect((await browser.get(path)).html).toContain('data-testid="flash-error"');

    const rotated = await browser.post(`${path}/rotate`);
    expect(rotated.location).toBe(path);
    const newSecret = secretShown((await browser.get(path)).html);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(ep.secret);
    await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`);
    await t.advance(m, 1);
    const [delivery] = receiver.received;
    const headers = headerMap(delivery?.headers ?? {});
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [newSecret ?? '', ep.secret])
      new Webhook(secret).verify(delivery?.body ?? '', headers);

    const deleted = await browser.post(`${path}/delete`);
    expect(deleted.location).toBe('/dashboard/webhooks');
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).status).toBe(404);
    expect((await browser.get('/dashboard/webhooks')).html).toContain('data-testid="no-endpoints"');
  });
  it('saving an endpoint the receiver disabled keeps the reason; ticking enabled turns it back on', async () => {
    const { m, browser } = await frozenMerchant();
    const ep = await createEndpoint(m);
    const path = `/dashboard/webhooks/${ep.id}`;
    receiver.status = 410;
    await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`);
    await t.advance(m, 1);
    const page = await browser.get(path);
    expect(page.html).toContain('data-testid="disabled-reason">the receiver answered 410 Gone<');
    expect(page.html).toContain('name="was_enabled" value="false"');
    await postForm(browser, path, [
      ['url', receiver.url],
      ['description', 'renamed'],
      ['was_enabled', 'false'],
      ['enabled_events[]', '*'],
    ]);
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
      description: 'renamed',
      enabled: false,
      disabled_reason: 'the receiver answered 410 Gone',
    });
    await postForm(browser, path, [
      ['url', receiver.url],
      ['was_enabled', 'false'],
      ['enabled', 'true'],
      ['enabled_events[]', '*'],
    ]);
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
  });
});

describe('the delivery log', () => {
  it('shows failed attempts with status and escaped body; redeliver succeeds and the log shows it', async () => {
    const { m, browser } = await frozenMerchant();
    const ep = await createEndpoint(m, { enabled_events: ['collection.created'] });
    const path = `/dashboard/webhooks/${ep.id}`;
    receiver.status = 500;
    receiver.body = '<script>alert(1)</script> down for maintenance';
    await t.post(m, '/v1/collect', { amount: 1, currency: 'USD', reference: 'hook-log' });
    // Due now, not attempted yet: the log asks to be fetched again until the attempt is made
    // (attempts are not events, so no live event announces them).
    const due = await browser.get(path);
    expect(deliveryStates(due.html)).toEqual(['pending']);
    expect(due.html).toContain('data-live-poll-ms="2000"');
    await t.advance(m, 1);
    await t.advance(m, 10); // the first retry, 5 s (+ up to 10%) after the first attempt
    expect(receiver.received).toHaveLength(2);

    const failing = await browser.get(path);
    expect(failing.html).toContain(`data-live-refresh="/dashboard/fragments/webhooks/${ep.id}/deliveries"`);
    expect(failing.html).toContain('data-live-on="any"');
    expect(count(failing.html, 'delivery-row')).toBe(1);
    expect(failing.html).toContain('data-testid="delivery-event-type">collection.created<');
    expect(deliveryStates(failing.html)).toEqual(['pending']);
    expect(failing.html).toContain('data-testid="delivery-attempts">2<');
    expect(count(failing.html, 'attempt-row')).toBe(2);
    expect(attemptStatuses(failing.html)).toEqual(['500', '500']);
    expect(failing.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; down for maintenance');
    expect(failing.html).not.toContain('<script>alert(1)');
    expect(failing.html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(failing.html).not.toMatch(/ style="/);
    expect(failing.html).toContain('failing since');
    expect(count(failing.html, 'redeliver')).toBe(1);
    expect(failing.html).not.toContain('data-live-poll-ms'); // the next retry is 5 minutes away

    const fragment = await browser.get(`/dashboard/fragments/webhooks/${ep.id}/deliveries`);
    expect(fragment.status).toBe(200);
    expect(attemptStatuses(fragment.html)).toEqual(['500', '500']);
    expect(fragment.html).not.toContain('<html');

    const eventId = /data-delivery="wd_[^"]*"[\s\S]*?href="\/dashboard\/events\/(evt_\w+)"/.exec(
      failing.html,
    )?.[1];
    expect(eventId).toMatch(/^evt_/);
    receiver.status = 200;
    receiver.body = 'thanks';
    const redelivered = await browser.post(`${path}/redeliver`, { event_id: eventId ?? '' });
    expect(redelivered.location).toBe(path);
    // The dashboard's redeliver makes the attempt at once (the API's queues it for the worker).
    expect(receiver.received).toHaveLength(3);
    const recovered = await browser.get(path);
    expect(recovered.html).toContain('data-testid="flash-notice"');
    expect(deliveryStates(recovered.html)).toEqual(['delivered']);
    expect(attemptStatuses(recovered.html)).toEqual(['500', '500', '200']);
    expect(recovered.html).toContain('data-testid="delivery-attempts">3<');
    expect(recovered.html).toContain('<code data-testid="attempt-response">thanks</code>');
    expect(recovered.html).not.toContain('failing since');
    expect(recovered.html).not.toContain('data-live-poll-ms');

    const rest = await t.get<{ data: Delivery[]; has_more: boolean }>(
      m,
      `/v1/webhook_endpoints/${ep.id}/deliveries`,
    );
    expect(rest.status).toBe(200);
    expect(rest.body.has_more).toBe(false);
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.data[0]).toMatchObject({
      event: eventId,
      event_type: 'collection.created',
      state: 'delivered',
    });
    expect(rest.body.data[0]?.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(rest.body.data[0]?.attempts[0]?.response_body).toBe(
      '<script>alert(1)</script> down for maintenance',
    );

    const gql = await t.gql<{ webhookEndpoint: { deliveries: { edges: { node: Json }[] } } }>(
      `query($id: ID!) { webhookEndpoint(id: $id) { failingSince deliveries(first: 5) { edges { node {
        eventId eventType state attempts { status responseBody } } } } } }`,
      { id: ep.id },
      { key: m.secretKey },
    );
    expect(gql.data.webhookEndpoint).toMatchObject({ failingSince: null });
    expect(gql.data.webhookEndpoint.deliveries.edges.map((e) => e.node)).toEqual([
      {
        eventId,
        eventType: 'collection.created',
        state: 'delivered',
        attempts: [
          { status: 500, responseBody: '<script>alert(1)</script> down for maintenance' },
          { status: 500, responseBody: '<script>alert(1)</script> down for maintenance' },
          { status: 200, responseBody: 'thanks' },
        ],
      },
    ]);
  });

  it('a receiver that is not listening shows "connection refused"', async () => {
    const { m, browser } = await frozenMerchant();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ep = await createEndpoint(m, { url: `http://127.0.0.1:${port}/hooks` });
    await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`);
    await t.advance(m, 1);
    const page = await browser.get(`/dashboard/webhooks/${ep.id}`);
    expect(attemptStatuses(page.html)).toEqual(['connection refused']);
    expect(page.html).toContain('ECONNREFUSED');
    expect(deliveryStates(page.html)).toEqual(['pending']);
  });

  it('lists deliveries newest first with pagination over REST, and redelivers over GraphQL', async () => {
    const { m } = await frozenMerchant();
    const ep = await createEndpoint(m);
    const first = await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`);
    const second = await t.post(m, `/v1/webhook_endpoints/${ep.id}/test`);
    await t.advance(m, 1);
    const page1 = await t.get<{ data: Delivery[]; has_more: boolean; next_cursor: string }>(
      m,
      `/v1/webhook_endpoints/${ep.id}/deliveries?limit=1`,
    );
    expect(page1.body.data.map((d) => d.event)).toEqual([second.body.id]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await t.get<{ data: Delivery[]; has_more: boolean }>(
      m,
      `/v1/webhook_endpoints/${ep.id}/deliveries?limit=1&starting_after=${page1.body.next_cursor}`,
    );
    expect(page2.body.data.map((d) => d.event)).toEqual([first.body.id]);
    expect(page2.body.has_more).toBe(false);
    expect((await t.get(m, `/v1/webhook_endpoints/${ep.id}/deliveries?limit=0`)).status).toBe(400);

    const redelivered = await t.gql<{ redeliverEvent: { data: Json[] } }>(
      `mutation($id: ID!, $endpoint: ID) { redeliverEvent(id: $id, endpointId: $endpoint) {
        ... on MutationRedeliverEventSuccess { data { endpointId state attemptCount eventType } } } }`,
      { id: first.body.id, endpoint: ep.id },
      { key: m.secretKey },
    );
    expect(redelivered.data.redeliverEvent.data).toEqual([
      { endpointId: ep.id, state: 'pending', attemptCount: 0, eventType: 'webhook.test' },
    ]);
    await t.advance(m, 1);
    expect(receiver.received).toHaveLength(3);
    const event = await t.gql<{ event: { deliveries: { state: string; attempts: Json[] }[] } }>(
      'query($id: ID!) { event(id: $id) { deliveries { state attempts { status } } } }',
      { id: first.body.id },
      { key: m.secretKey },
    );
    expect(event.data.event.deliveries).toEqual([
      { state: 'delivered', attempts: [{ status: 200 }, { status: 200 }] },
    ]);
  });

  it("another merchant's endpoint is 404 and its forms change nothing", async () => {
    const owner = await t.merchant();
    const ep = await createEndpoint(owner, { description: 'mine' });
    const { m: other, browser } = await frozenMerchant();
    const page = await browser.get(`/dashboard/webhooks/${ep.id}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('data-testid="not-found"');
    expect(page.html).not.toContain(receiver.url);
    expect((await browser.get(`/dashboard/fragments/webhooks/${ep.id}/deliveries`)).status).toBe(404);
    for (const action of ['', '/rotate', '/test', '/delete'])
      await postForm(browser, `/dashboard/webhooks/${ep.id}${action}`, [
        ['url', 'http://127.0.0.1:9/stolen'],
        ['enabled', 'true'],
        ['enabled_events[]', '*'],
      ]);
    const after = await t.get(owner, `/v1/webhook_endpoints/${ep.id}`);
    expect(after.body).toMatchObject({ url: receiver.url, description: 'mine', enabled: true });
    expect((await t.get(owner, `/v1/webhook_endpoints/${ep.id}/deliveries`)).body.data).toEqual([]);
    expect((await t.get(other, `/v1/webhook_endpoints/${ep.id}/deliveries`)).status).toBe(404);
    expect((await browser.get('/dashboard/webhooks')).html).toContain('data-testid="no-endpoints"');
  });
});

describe('event types', () => {
  it('are derived from the state machines, over REST and GraphQL, and cover what the code emits', async () => {
    const types = listEventTypes();
    expect(new Set(types).size).toBe(types.length);
    for (const type of [
      'collection.created',
      'collection.succeeded',
      'card_payment.captured',
      'refund.succeeded',
      'transfer.returned',
      'transfer.completed',
      'payout.paid',
      'payout.in_transit',
      'balance_transaction.created',
      'balance_transaction.posted',
      'balance_transaction.voided',
      'balance_transaction.reversed',
      'virtual_card.frozen',
      'virtual_card.active',
      'issuing_authorization.declined',
      'issuing_authorization.refunded',
      'fx_quote.expired',
      'fx_conversion.completed',
      'fx_settlement.paid',
      'webhook.test',
    ])
      expect(types).toContain(type);
    // Created objects announce `created`, never their initial state.
    for (const type of [
      'collection.pending',
      'transfer.pending',
      'balance_transaction.pending',
      'fx_quote.open',
    ])
      expect(types).not.toContain(type);
    expect(eventTypeGroups().map((group) => group.object)).toContain('fx_settlement');

    const m = await t.merchant();
    const rest = await t.get<{ data: { type: string }[] }>(m, '/v1/event_types');
    expect(rest.body.data.map((entry) => entry.type)).toEqual(types);
    const gql = await t.gql<{ eventTypes: string[] }>('{ eventTypes }', {}, { key: m.secretKey });
    expect(gql.data.eventTypes).toEqual(types);

    await t.post(m, '/v1/collect', { amount: '3.00', currency: 'USD', reference: 'typed' });
    await t.post(m, '/v1/simulate/collections/typed/pay', {
      method: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    const card = await t.post(m, '/v1/virtual_cards', { brand: 'visa', cardholder_name: 'Ada Lovelace' });
    await t.post(m, `/v1/virtual_cards/${card.body.id}`, { state: 'frozen' });
    await t.post(m, `/v1/virtual_cards/${card.body.id}`, { state: 'active' });
    await t.post(m, `/v1/simulate/virtual_cards/${card.body.id}/authorizations`, {
      amount: '500.00',
      merchant: { name: 'Shop', mcc: '5814' },
    });
    const emitted = await t.get<{ data: { type: string }[] }>(m, '/v1/events?limit=100');
    const emittedTypes = [...new Set(emitted.body.data.map((event) => event.type))];
    expect(emittedTypes.length).toBeGreaterThanOrEqual(8);
    for (const type of emittedTypes) expect(types, type).toContain(type);
  });
});
