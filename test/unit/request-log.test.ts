/**
 * The request log's pure parts: what its masking keeps and hides (JSON bodies, GraphQL documents,
 * query strings), the cut of a long body, who a request is from, its settings read from the
 * environment, and the version the CLI and sandbank/testing send as their User-Agent.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { errorCodeOf, rowOf, sourceOf } from '../../src/modules/request-log/request-log.entry.ts';
import {
  redactDocument,
  redactJson,
  redactQuery,
  storable,
} from '../../src/modules/request-log/request-log.redact.ts';
import { statusFilter } from '../../src/modules/request-log/request-log.schema.ts';
import { CLI_USER_AGENT, SANDBANK_VERSION, TESTING_USER_AGENT } from '../../src/user-agent.ts';

describe('masking', () => {
  it('keeps the last four of card and account numbers, hides codes and secrets, keeps the rest', () => {
    const body = JSON.stringify({
      amount: '100.50',
      card: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2099, cvc: '123' },
      destination: {
        routing_number: '021000021',
        account_number: '000123456789',
        iban: 'DE89370400440532013000',
      },
      token: 'tok_01J000',
      secret: 'whsec_abc',
      client_secret: 'cs_1',
      password: 'hunter2',
      api_key: 'sk_test_zzzzzzzz1234',
      trace_number: '021000021234567',
    });
    expect(JSON.parse(redactJson(body))).toEqual({
      amount: '100.50',
      card: { number: '****4242', exp_month: 12, exp_year: 2099, cvc: '***' },
      destination: { routing_number: '021000021', account_number: '****6789', iban: '****3000' },
      token: 'tok_01J000',
      secret: '[redacted]',
      client_secret: '[redacted]',
      password: '[redacted]',
      api_key: '[redacted]',
      trace_number: '021000021234567',
    });
  });

  it('masks numbers given as JSON numbers, keeps exact digits elsewhere, and leaves plain text untouched', () => {
    expect(redactJson('{"number":4242424242424242,"amount":100.50}')).toBe(
      '{"number":"****4242","amount":100.50}',
    );
    const plain = '{"status":"success","amount":12.50,"reference":"A-1"}';
    expect(redactJson(plain)).toBe(plain);
  });

  it('masks a URL’s secret parameter (a checkout link’s)', () => {
    expect(redactJson('{"checkout_url":"http://x/checkout/col_1?secret=abc123&lang=en"}')).toBe(
      '{"checkout_url":"http://x/checkout/col_1?secret=[redacted]&lang=en"}',
    );
  });

  it('masks secret keys and signing secrets wherever they are', () => {
    expect(redactJson('{"note":"use sk_test_abcdefghijkl_9876 and whsec_MfKQ9r8GKYqrTwjUPD8ILPZI"}')).toBe(
      '{"note":"use sk_test_****9876 and whsec_****"}',
    );
  });

  it('GraphQL documents: literals by name, long digit runs anywhere; an alias is no value', () => {
    expect(
      redactDocument(
        'mutation { createCardPayment(card: {number: "4242424242424242", cvc: "123", expMonth: 12}) { number: id } }',
      ),
    ).toBe(
      'mutation { createCardPayment(card: {number: "****4242", cvc: "***", expMonth: 12}) { number: id } }',
    );
    expect(redactDocument('{ x } # 5555555555554444')).toBe('{ x } # ****4444');
  });

  it('query strings, brackets encoded or not', () => {
    expect(redactQuery('card[number]=4242424242424242&card[cvc]=123&limit=3')).toBe(
      'card[number]=****4242&card[cvc]=***&limit=3',
    );
    expect(redactQuery('card%5Bcvc%5D=999&secret_key=sk_test_abcdefgh1234')).toBe(
      'card[cvc]=***&secret_key=[redacted]',
    );
  });
});

describe('storable text', () => {
  it('cuts at the cap (never inside a surrogate pair) and says how long it was; no U+0000', () => {
    expect(storable('abc', 2)).toBe('ab… [cut: 3 characters in all]');
    expect(storable('a😀b', 2)).toBe('a… [cut: 4 characters in all]');
    expect(storable('a\u0000b')).toBe('a\uFFFDb');
    expect(storable('short')).toBe('short');
  });
});

describe('an entry', () => {
  it('its source, its error code, and its row', () => {
    expect(sourceOf('sandbank-cli/0.1.0', false)).toBe('cli');
    expect(sourceOf('sandbank-testing/0.1.0', false)).toBe('testing');
    expect(sourceOf('sandbank-cli/0.1.0', true)).toBe('dashboard');
    expect(sourceOf(undefined, false)).toBe('api');
    expect(errorCodeOf('{"status":"error","error":{"type":"card_error","code":"card_declined"}}')).toBe(
      'card_declined',
    );
    expect(errorCodeOf(null)).toBeNull();
    expect(statusFilter('402,4xx,5XX')).toEqual({ statuses: [402], classes: [4, 5] });
    const row = rowOf({
      id: 'req_1',
      merchantId: 'mch_1',
      method: 'POST',
      path: '/graphql',
      operation: 'Pay',
      status: 200,
      errorCode: null,
      idempotencyKey: null,
      latencyMs: 3,
      source: 'api',
      query: null,
      requestBody: {
        kind: 'graphql',
        query: 'mutation Pay($c: CardInput!) { createCardPayment(card: $c) { id } }',
        operationName: 'Pay',
        variables: { c: { number: '4242424242424242', cvc: '123' } },
      },
      responseBody: '{"data":{"createCardPayment":{"id":"cp_1"}}}',
      createdAt: new Date(0),
    });
    expect(JSON.parse(String(row.requestBody))).toEqual({
      operationName: 'Pay',
      query: 'mutation Pay($c: CardInput!) { createCardPayment(card: $c) { id } }',
      variables: { c: { number: '****4242', cvc: '***' } },
    });
  });
});

describe('settings', () => {
  it('REQUEST_LOG, REQUEST_LOG_RETENTION_HOURS and REQUEST_LOG_MAX_PER_MERCHANT, with their defaults and bounds', () => {
    expect(loadConfig({}, []).requestLog).toEqual({
      enabled: true,
      retentionHours: 24,
      maxPerMerchant: 1000,
    });
    expect(
      loadConfig(
        { REQUEST_LOG: 'off', REQUEST_LOG_RETENTION_HOURS: '72', REQUEST_LOG_MAX_PER_MERCHANT: '50' },
        [],
      ).requestLog,
    ).toEqual({ enabled: false, retentionHours: 72, maxPerMerchant: 50 });
    expect(() => loadConfig({ REQUEST_LOG: 'maybe' }, [])).toThrow(/REQUEST_LOG/);
    expect(() => loadConfig({ REQUEST_LOG_RETENTION_HOURS: '0' }, [])).toThrow(/REQUEST_LOG_RETENTION_HOURS/);
    expect(() => loadConfig({ REQUEST_LOG_MAX_PER_MERCHANT: '1.5' }, [])).toThrow(
      /REQUEST_LOG_MAX_PER_MERCHANT/,
    );
  });

  it('the CLI and sandbank/testing name themselves with package.json’s version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(SANDBANK_VERSION).toBe(version);
    expect(CLI_USER_AGENT).toBe(`sandbank-cli/${version}`);
    expect(TESTING_USER_AGENT).toBe(`sandbank-testing/${version}`);
  });
});
