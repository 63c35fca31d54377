/**
 * Updating a collection: metadata keys merged (an empty value removes one), the description set or
 * cleared, in any state, with no event; bad input refused and nothing changed; REST and GraphQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp } from '../../support/harness.ts';
import { expectRefusedUnchanged } from '../../support/refusals.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('POST /v1/collections/{reference}', () => {
  it('merges metadata, removes a key set to "", sets and clears the description, and writes no event', async () => {
    const m = await t.merchant();
    const made = await t.post(m, '/v1/collect', {
      amount: 12,
      currency: 'USD',
      reference: 'upd-1',
      metadata: { order: '1', keep: 'yes' },
    });
    expect(made.status).toBe(200);
    const first = await t.post(m, '/v1/collections/upd-1', {
      metadata: { order: '', fulfilment: 'pending' },
      description: 'Two mugs',
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      metadata: { keep: 'yes', fulfilment: 'pending' },
      description: 'Two mugs',
    });
    expect((first.body.metadata as Json).order).toBeUndefined();
    const byId = await t.post(m, `/v1/collections/${made.body.id}`, { description: null });
    expect(byId.body).toMatchObject({ description: null, metadata: { keep: 'yes', fulfilment: 'pending' } });
    const events = (await t.get(m, `/v1/events?object_id=${made.body.id}`)).body.data as Json[];
    expect(events.map((e) => e.type)).toEqual(['collection.created']);
    const gql = await t.gql<Json>(
      `mutation { updateCollection(reference: "upd-1", input: { metadata: { fulfilment: "done" } }) {
        ... on MutationUpdateCollectionSuccess { data { metadata } } } }`,
      {},
      { key: m.secretKey },
    );
    expect(((gql.data.updateCollection as Json).data as Json).metadata).toEqual({
      keep: 'yes',
      fulfilment: 'done',
    });
  });

  it('refuses bad input and an unknown collection, changing nothing', async () => {
    const m = await t.merchant();
    await t.post(m, '/v1/collect', { amount: 5, currency: 'USD', reference: 'upd-2' });
    const refuse = (path: string, body: Json, status: number, code: string) =>
      expectRefusedUnchanged(t, m, { path, body, status, code, lists: ['/v1/collections'] });
    await refuse('/v1/collections/upd-2', { metadata: { ['k'.repeat(41)]: 'v' } }, 400, 'parameter_invalid');
    await refuse('/v1/collections/upd-2', { metadata: { k: 'v'.repeat(501) } }, 400, 'parameter_invalid');
    await refuse('/v1/collections/upd-2', { amount: 3 }, 400, 'parameter_unknown');
    await refuse('/v1/collections/nope', { description: 'x' }, 404, 'resource_not_found');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    await refuse('/v1/collections/upd-2', { metadata: many }, 400, 'parameter_invalid');
  });
});
