/**
 * HTTP Basic with the API key as the user name (`curl -u sk_test_…:`, Stripe's habit) authenticates
 * exactly as `Authorization: Bearer <key>` does, over REST and GraphQL; anything else in a Basic
 * header is a 401 naming both forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
let m: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant();
});
afterAll(async () => {
  await t.close();
});

/** The header curl sends for `-u <user>:<password>`. */
const basic = (user: string, password = '') =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

describe('HTTP Basic with the key as the user name', () => {
  it('creates with the secret key and an empty password, as curl -u sk_test_…: sends it', async () => {
    const res = await t.rest<{ reference: string; state: string }>('POST', '/v1/collect', {
      key: null,
      headers: { authorization: basic(m.secretKey) },
      body: { amount: '12.00', currency: 'USD' },
    });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('pending');
    const read = await t.rest<{ state: string }>('GET', `/v1/collections/${res.body.reference}`, {
      key: m.secretKey,
    });
    expect(read.status).toBe(200);
    expect(read.body.state).toBe('pending');
  });

  it('ignores the password, and takes the key with or without the colon', async () => {
    for (const header of [
      basic(m.secretKey, 'anything'),
      `Basic ${Buffer.from(m.secretKey).toString('base64')}`,
    ]) {
      const res = await t.rest('GET', '/v1/balances', { key: null, headers: { authorization: header } });
      expect(res.status).toBe(200);
    }
  });

  it('treats a public key as the Bearer form does: refused where a secret key is needed', async () => {
    const viaBasic = await t.rest<{ error: { code: string } }>('GET', '/v1/balances', {
      key: null,
      headers: { authorization: basic(m.publicKey) },
    });
    const viaBearer = await t.rest<{ error: { code: string } }>('GET', '/v1/balances', { key: m.publicKey });
    expect(viaBasic.status).toBe(viaBearer.status);
    expect(viaBasic.body.error.code).toBe(viaBearer.body.error.code);
    expect(viaBasic.status).toBeGreaterThanOrEqual(400);
  });

  it('answers 401 for an unknown key, an empty user name or a header that is not base64', async () => {
    const unknown = await t.rest<{ error: { code: string } }>('GET', '/v1/balances', {
      key: null,
      headers: { authorization: basic(`sk_test_${'0'.repeat(32)}`) },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('api_key_invalid');
    for (const header of [basic(''), basic('', m.secretKey), 'Basic', 'Basic !!!', `Basic ${m.secretKey}`]) {
      const res = await t.rest<{ error: { code: string; message: string } }>('GET', '/v1/balances', {
        key: null,
        headers: { authorization: header },
      });
      expect(res.status, header).toBe(401);
      expect(res.body.error.code, header).toBe('api_key_missing');
      expect(res.body.error.message).toMatch(/Basic/);
    }
  });

  it('authenticates GraphQL the same way', async () => {
    const query = '{ collections(first: 10) { edges { node { id } } } }';
    type Collections = { collections: { edges: { node: { id: string } }[] } };
    const viaBasic = await t.gql<Collections>(query, undefined, {
      key: null,
      headers: { authorization: basic(m.secretKey) },
    });
    const viaBearer = await t.gql<Collections>(query, undefined, { key: m.secretKey });
    expect(viaBasic.errors).toBeUndefined();
    expect(viaBasic.data.collections.edges.length).toBeGreaterThan(0);
    expect(viaBasic.data).toEqual(viaBearer.data);
  });
});
