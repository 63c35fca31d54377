import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardBrowser, signedIn } from '../../support/dashboard.ts';
import {
  createTestApp,
  openIsolatedTestDatabase,
  rowCounts,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';

/**
 * Text no column can store (U+0000, an unpaired UTF-16 surrogate) is refused where it enters, on
 * every surface: a 404 in a path id (as an unknown id is), a 400 naming the parameter anywhere
 * else, and nothing is written. Row counts cover the whole database, so this file has its own: no
 * other file's merchants appear between two counts.
 */

let t: TestApp;
let m: TestMerchant;
let drop: () => Promise<void>;

beforeAll(async () => {
  const isolated = await openIsolatedTestDatabase();
  drop = isolated.drop;
  t = await createTestApp({ database: isolated.database });
  m = await t.merchant('Unstorable');
});
afterAll(async () => {
  await drop?.();
});

interface Operation {
  parameters?: { in: string; name: string }[];
}

async function getOperations(): Promise<[string, Operation][]> {
  const document = (await t.rest('GET', '/v1/openapi.json')).body as unknown as {
    paths: Record<string, Record<string, Operation>>;
  };
  return Object.entries(document.paths).flatMap(([path, ops]) =>
    ops.get ? [[path, ops.get] as [string, Operation]] : [],
  );
}

describe('REST', () => {
  it('a query filter with U+0000 is a 400 naming it, on every GET operation that has one', async () => {
    let checked = 0;
    for (const [path, op] of await getOperations()) {
      for (const name of (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)) {
        const url = `/v1${path.replaceAll(/\{\w+\}/g, 'x')}?${name}=a%00b`;
        const res = await t.rest('GET', url, { key: m.secretKey });
        expect({ url, status: res.status, param: (res.body.error as { param?: string })?.param }).toEqual({
          url,
          status: 400,
          param: name,
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it('a path id with U+0000 is a 404, on every GET operation that takes one', async () => {
    let checked = 0;
    for (const [path] of await getOperations()) {
      if (!path.includes('{')) continue;
      const url = `/v1${path.replace(/\{\w+\}/, 'col_%00')}`.replaceAll(/\{\w+\}/g, 'x');
      const res = await t.rest('GET', url, { key: m.secretKey });
      expect({ url, status: res.status, code: (res.body.error as { code?: string })?.code }).toEqual({
        url,
        status: 404,
        code: 'resource_not_found',
      });
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('the keyless sign-up refuses a name with U+0000 or a lone surrogate and creates no merchant', async () => {
    const before = await rowCounts(t.database);
    for (const name of ['Acme\u0000', 'Acme\uD800', '\uDC00']) {
      const res = await t.rest('POST', '/v1/merchants', { body: { name } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
    }
    expect(await rowCounts(t.database)).toEqual(before);
  });

  it('metadata keys and values with a lone surrogate are refused (jsonb cannot hold them)', async () => {
    for (const metadata of [{ note: 'a\uD83D' }, { 'k\uDE00': 'v' }]) {
      const res = await t.rest('POST', '/v1/collect', {
        key: m.secretKey,
        body: { amount: 10, currency: 'USD', metadata },
      });
      expect(res.status).toBe(400);
      expect((res.body.error as { param: string }).param).toMatch(/^metadata\./);
    }
    expect((await t.rest('GET', '/v1/collections', { key: m.secretKey })).body.data).toEqual([]);
  });

  it('a well-formed pair (an emoji) is stored and read back unchanged', async () => {
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      body: { amount: 10, currency: 'USD', description: 'Thanks 😀', metadata: { note: '😀' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'Thanks 😀', metadata: { note: '😀' } });
  });
});

describe('GraphQL', () => {
  it('refuses U+0000 in a variable and in a literal of a query, and a lone surrogate in a mutation (its typed error)', async () => {
    const variable = await t.gql(
      'query($q: String) { transactions(search: $q) { edges { node { id } } } }',
      {
        q: 'a\u0000',
      },
      { key: m.secretKey },
    );
    const literal = await t.gql(
      '{ transactions(search: "a\\u0000") { edges { node { id } } } }',
      {},
      { key: m.secretKey },
    );
    for (const res of [variable, literal]) {
      expect(res.errors?.[0]?.extensions).toMatchObject({
        code: 'parameter_invalid',
        status: 400,
        param: 'search',
      });
      expect(res.data ?? null).toBeNull();
    }
    // A mutation answers with its typed error, as for any other invalid argument.
    const mutation = await t.gql<{ createVirtualCard: Record<string, unknown> }>(
      'mutation($name: String!) { createVirtualCard(brand: visa, cardholderName: $name) { __typename ... on SandbankError { code param httpStatus } } }',
      { name: 'Ada\uD800' },
      { key: m.secretKey },
    );
    expect(mutation.data.createVirtualCard).toEqual({
      __typename: 'SandbankError',
      code: 'parameter_invalid',
      param: 'cardholderName',
      httpStatus: 400,
    });
    expect((await t.rest('GET', '/v1/virtual_cards', { key: m.secretKey })).body.data).toEqual([]);
  });
});

describe('pages', () => {
  it('the keyless checkout and 3-D Secure pages answer 404 for an id with U+0000', async () => {
    for (const path of ['/checkout/col_%00', '/checkout/col_%00/pay', '/3ds/cp_%00']) {
      const res = await t.app.request(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });

  it('a dashboard form field with U+0000 is a 400 and changes nothing', async () => {
    const browser = await signedIn(() => t, m);
    const before = await rowCounts(t.database);
    const res = await browser.post('/dashboard/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      description: 'bad\u0000text',
      events: '*',
    });
    expect(res.status).toBe(400);
    expect(res.html).toContain('description');
    expect(await rowCounts(t.database)).toEqual(before);
  });

  it('the signed-out sign-in form refuses U+0000 too', async () => {
    const browser = dashboardBrowser(() => t);
    const res = await browser.post('/dashboard/login', { key: `${m.secretKey}\u0000` });
    expect(res.status).toBe(400);
  });
});
