/**
 * Currency codes in any case ("usd", as Stripe's clients send them) are read as the upper-case code
 * on every route that takes one, answered in upper case, and described exactly in the OpenAPI
 * document (a pattern of the accepted codes, each letter in either case).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
let m: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant();
  const topUp = await t.rest('POST', '/v1/simulate/balance/top_up', {
    key: m.secretKey,
    body: { amount: '5000.00', currency: 'usd' },
  });
  expect(topUp.status).toBe(200);
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;
const post = (path: string, body: Json) => t.rest<Json>('POST', path, { key: m.secretKey, body });
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const account = { name: 'Case Supplies', routing_number: '021000021', account_number: '000123456789' };

describe('currency codes in any case', () => {
  it('are read as the upper-case code and answered in upper case on every route that takes one', async () => {
    const created: [string, Json][] = [
      ['/v1/collect', { amount: '10.00', currency: 'usd' }],
      ['/v1/card_payments', { amount: '10.00', currency: 'Usd', card }],
      [
        '/v1/transfers',
        {
          rail: 'ach',
          direction: 'credit',
          amount: '1.00',
          currency: 'uSD',
          counterparty: { ...account, account_type: 'checking' },
        },
      ],
      ['/v1/payouts', { amount: '1.00', currency: 'usd', method: 'ach', destination: account }],
      ['/v1/fx/quotes', { source_currency: 'usd', target_currency: 'eur', source_amount: '10.00' }],
    ];
    for (const [path, body] of created) {
      const res = await post(path, body);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      const currencies = ['currency', 'source_currency', 'target_currency']
        .map((key) => res.body[key])
        .filter((value) => value !== undefined);
      expect(currencies.length, path).toBeGreaterThan(0);
      for (const value of currencies) expect(value, path).toMatch(/^[A-Z]{3}$/);
    }
    const vc = await post('/v1/virtual_cards', { brand: 'visa', cardholder_name: 'Case', currency: 'usd' });
    expect(vc.status).toBe(200);
    const auth = await post(`/v1/simulate/virtual_cards/${String(vc.body.id)}/authorizations`, {
      amount: '1.00',
      currency: 'usd',
      merchant: { name: 'Blue Bottle', mcc: '5814' },
    });
    expect(auth.status).toBe(200);
    expect(auth.body.currency).toBe('USD');
    const filtered = await t.rest<{ data: Json[] }>('GET', '/v1/balance_transactions?currency=usd', {
      key: m.secretKey,
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body.data.length).toBeGreaterThan(0);
    for (const row of filtered.body.data) expect(row.currency).toBe('USD');
  });

  it('still refuses codes that are not accepted, in any case', async () => {
    for (const currency of ['eur', 'XYZ', 'us', 'usdd', '']) {
      const res = await post('/v1/collect', { amount: '10.00', currency });
      expect(res.status, currency).toBe(400);
      expect((res.body.error as Json).code, currency).toBe('currency_unsupported');
    }
  });

  it('are described exactly in the OpenAPI document', async () => {
    const doc = await t.rest<Json>('GET', '/v1/openapi.json');
    const paths = doc.body.paths as Record<string, Record<string, Json>>;
    const schemaOf = (path: string): Record<string, Json> => {
      const body = paths[path]?.post?.requestBody as
        | { content: Record<string, { schema: { properties: Record<string, Json> } }> }
        | undefined;
      const schema = body?.content['application/json']?.schema;
      if (!schema) throw new Error(`no JSON request body for POST ${path}`);
      return schema.properties;
    };
    const collect = schemaOf('/collect').currency as { pattern: string };
    const pattern = new RegExp(collect.pattern);
    for (const ok of ['USD', 'usd', 'uSd']) expect(pattern.test(ok), ok).toBe(true);
    for (const no of ['EUR', 'usdx', 'US']) expect(pattern.test(no), no).toBe(false);
    const quote = schemaOf('/fx/quotes').target_currency as { pattern: string };
    for (const ok of ['EUR', 'gbp', 'Jpy']) expect(new RegExp(quote.pattern).test(ok), ok).toBe(true);
    expect(new RegExp(quote.pattern).test('usd')).toBe(false);
  });
});
