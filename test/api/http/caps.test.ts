import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_ENDPOINTS } from '../../../src/modules/webhooks/webhooks.service.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';
import { createTestApp, openTestDatabase, type TestApp } from '../../support/harness.ts';

/**
 * The caps that bound one client's fan-out: webhook endpoints per merchant, the event types an
 * endpoint may name, keyless sign-ups per address. (Subscription caps: test/e2e/subscription-caps.)
 */

let t: TestApp;

beforeAll(async () => {
  // 24 connections on Postgres, so that the concurrent creates below really overlap.
  t = await createTestApp({ database: await openTestDatabase({ connections: 24 }), signupsPerMinute: 3 });
});
afterAll(async () => {
  await t.close();
});

const hook = (n: number) => ({ url: `http://127.0.0.1:9/hook-${n}`, enabled_events: ['*'] });

describe('webhook endpoints', () => {
  it(`a merchant has at most ${MAX_WEBHOOK_ENDPOINTS}; the next is limit_exceeded, until one is deleted`, async () => {
    const m = await t.merchant('Many endpoints');
    const ids: string[] = [];
    for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS; n++) {
      const res = await t.rest('POST', '/v1/webhook_endpoints', { key: m.secretKey, body: hook(n) });
      expect(res.status).toBe(200);
      ids.push(String(res.body.id));
    }
    const over = await t.rest('POST', '/v1/webhook_endpoints', { key: m.secretKey, body: hook(99) });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'limit_exceeded' });
    const gql = await t.gql<{ createWebhookEndpoint: { __typename: string; code?: string } }>(
      'mutation { createWebhookEndpoint(url: "http://127.0.0.1:9/x") { __typename ... on SandbankError { code } } }',
      {},
      { key: m.secretKey },
    );
    expect(gql.data.createWebhookEndpoint).toEqual({ __typename: 'SandbankError', code: 'limit_exceeded' });
    // Another merchant is not affected.
    const other = await t.merchant('Other');
    expect(
      (await t.rest('POST', '/v1/webhook_endpoints', { key: other.secretKey, body: hook(0) })).status,
    ).toBe(200);
    expect((await t.rest('DELETE', `/v1/webhook_endpoints/${ids[0]}`, { key: m.secretKey })).status).toBe(
      200,
    );
    expect(
      (await t.rest('POST', '/v1/webhook_endpoints', { key: m.secretKey, body: hook(100) })).status,
    ).toBe(200);
  });

  it('concurrent creates never pass the cap', async () => {
    const m = await t.merchant('Racing endpoints');
    const results = await Promise.all(
      Array.from({ length: MAX_WEBHOOK_ENDPOINTS + 8 }, (_, n) =>
        t.rest('POST', '/v1/webhook_endpoints', { key: m.secretKey, body: hook(n) }),
      ),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    expect(results.filter((res) => res.status === 400)).toHaveLength(8);
    const listed = await t.rest('GET', '/v1/webhook_endpoints?limit=100', { key: m.secretKey });
    expect(listed.body.data).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });

  it('enabled_events names known event types or "*", on create and update', async () => {
    const m = await t.merchant('Event types');
    const listedTypes = (await t.rest('GET', '/v1/event_types', { key: m.secretKey })).body.data as {
      type: string;
    }[];
    const types = listedTypes.map((entry) => entry.type);
    const known = await t.rest('POST', '/v1/webhook_endpoints', {
      key: m.secretKey,
      body: { url: 'http://127.0.0.1:9/k', enabled_events: types.slice(0, 3) },
    });
    expect(known.status).toBe(200);
    for (const body of [
      { url: 'http://127.0.0.1:9/u', enabled_events: ['collection.exploded'] },
      { url: 'http://127.0.0.1:9/u', events: ['collection.succeeded', 'nothing.here'] },
    ]) {
      const res = await t.rest('POST', '/v1/webhook_endpoints', { key: m.secretKey, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid' });
      expect((res.body.error as { message: string }).message).toContain('/v1/event_types');
    }
    const update = await t.rest('POST', `/v1/webhook_endpoints/${known.body.id}`, {
      key: m.secretKey,
      body: { enabled_events: ['payout.teleported'] },
    });
    expect(update.status).toBe(400);
    const listed = await t.rest('GET', '/v1/webhook_endpoints', { key: m.secretKey });
    expect(listed.body.data).toHaveLength(1);
  });
});

describe('keyless sign-ups', () => {
  it('an address may sign up SIGNUPS_PER_MINUTE merchants a minute; then 429, over REST and in the dashboard', async () => {
    const made: number[] = [];
    for (let n = 0; n < 3; n++)
      made.push((await t.rest('POST', '/v1/merchants', { body: { name: `S${n}` } })).status);
    expect(made).toEqual([201, 201, 201]);
    // A refused name does not use a sign-up; the cap is reached all the same.
    expect((await t.rest('POST', '/v1/merchants', { body: { name: '' } })).status).toBe(400);
    const over = await t.rest('POST', '/v1/merchants', { body: { name: 'One too many' } });
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'rate_limited' });
    const browser = dashboardBrowser(() => t);
    await browser.get('/dashboard/signup');
    expect((await browser.post('/dashboard/signup', { name: 'Via the form' })).status).toBe(429);
  });
});
