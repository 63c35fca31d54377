import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/kernel/clock.ts';
import { ERROR_REGISTRY, type ErrorCode } from '../../../src/kernel/errors.ts';
import { collections } from '../../../src/modules/collections/collections.table.ts';
import { rollKeys } from '../../../src/modules/merchants/merchants.service.ts';
import { createTestApp, type TestApp, type TestMerchant, type TestResponse } from '../../support/harness.ts';

/**
 * Malformed POST /v1/collect requests: every one is answered with the registry's error in the
 * envelope, and none writes a collection.
 */

let t: TestApp;
let m: TestMerchant;
/** A merchant whose keys were rolled: `revokedKey` is its old, revoked secret key. */
let rolled: TestMerchant;
let revokedKey: string;
let rolledKeys: { secretKey: string; publicKey: string };

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Bad Input');
  rolled = await t.merchant('Rolled Keys');
  revokedKey = rolled.secretKey;
  // The key works (and sits in the key cache) before it is rolled.
  const before = await t.rest('GET', '/v1/collections', { key: revokedKey });
  expect(before.status).toBe(200);
  rolledKeys = await rollKeys(t.database.db, systemClock, rolled.id);
});
afterAll(async () => {
  await t.close();
});

const base = { amount: 10, currency: 'USD' };
const JSON_TYPE = 'application/json';

/** How a case authenticates: a key of the merchant under test, or a raw Authorization header. */
type Auth = 'secret' | 'public' | 'revoked' | 'none' | { header: string };

interface BadRequest {
  /** A JSON value sent with content-type application/json. */
  body?: unknown;
  /** Raw body text, sent as is with `contentType` (none when null). */
  raw?: string;
  contentType?: string | null;
  auth?: Auth;
}

interface Case {
  name: string;
  request: BadRequest;
  status: number;
  code: ErrorCode;
  /** The reported parameter; cases without it assert that no param is reported. */
  param?: string;
  message?: RegExp;
}

const amount = (value: unknown): BadRequest => ({ body: { ...base, amount: value } });
const currency = (value: unknown): BadRequest => ({ body: { ...base, currency: value } });
const field = (name: string, value: unknown): BadRequest => ({ body: { ...base, [name]: value } });
const raw = (text: string, contentType: string | null = JSON_TYPE): BadRequest => ({
  raw: text,
  contentType,
});
const withAuth = (auth: Auth): BadRequest => ({ body: base, auth });

const bad = (name: string, request: BadRequest, code: ErrorCode, param?: string, message?: RegExp): Case => ({
  name,
  request,
  status: ERROR_REGISTRY[code].status,
  code,
  ...(param !== undefined ? { param } : {}),
  ...(message ? { message } : {}),
});

const CASES: Case[] = [
  // Wrong JSON types.
  bad('amount true', amount(true), 'amount_invalid', 'amount'),
  bad('amount null', amount(null), 'amount_invalid', 'amount'),
  bad('amount []', amount([]), 'amount_invalid', 'amount'),
  bad('amount {}', amount({}), 'amount_invalid', 'amount'),
  bad('currency 840 (a number)', currency(840), 'currency_unsupported', 'currency'),
  bad('currency null', currency(null), 'currency_unsupported', 'currency'),
  // Missing fields.
  bad('missing amount', { body: { currency: 'USD' } }, 'parameter_missing', 'amount', /amount/),
  bad('missing currency', { body: { amount: 10 } }, 'parameter_missing', 'currency', /currency/),
  bad('empty object {}', { body: {} }, 'parameter_missing', 'amount'),
  bad('no body at all', { raw: '', contentType: JSON_TYPE }, 'parameter_missing', 'amount'),
  // Amounts.
  bad('amount 1.234 (three decimals)', amount(1.234), 'amount_invalid', 'amount', /2 decimal places/),
  bad('amount "1.234"', amount('1.234'), 'amount_invalid', 'amount', /2 decimal places/),
  bad('amount "0.001"', amount('0.001'), 'amount_invalid', 'amount'),
  bad('amount "10.999"', amount('10.999'), 'amount_invalid', 'amount'),
  bad('amount -5', amount(-5), 'amount_invalid', 'amount', /positive/),
  bad('amount "-5"', amount('-5'), 'amount_invalid', 'amount'),
  bad('amount -0.01', amount(-0.01), 'amount_invalid', 'amount'),
  bad('amount 0', amount(0), 'amount_invalid', 'amount', /greater than zero/),
  bad('amount "0.00"', amount('0.00'), 'amount_invalid', 'amount'),
  bad(
    'amount 1e400 (parses to Infinity)',
    raw('{"amount":1e400,"currency":"USD"}'),
    'amount_invalid',
    'amount',
  ),
  bad('amount -1e400', raw('{"amount":-1e400,"currency":"USD"}'), 'amount_invalid', 'amount'),
  bad('amount "abc"', amount('abc'), 'amount_invalid', 'amount'),
  bad('amount "NaN"', amount('NaN'), 'amount_invalid', 'amount'),
  bad('amount "Infinity"', amount('Infinity'), 'amount_invalid', 'amount'),
  bad('amount " " (blank)', amount(' '), 'amount_invalid', 'amount'),
  bad('amount "" (empty)', amount(''), 'amount_invalid', 'amount'),
  bad('amount "1e5" (exponent)', amount('1e5'), 'amount_invalid', 'amount'),
  bad('amount "+5"', amount('+5'), 'amount_invalid', 'amount'),
  bad('amount ".5"', amount('.5'), 'amount_invalid', 'amount'),
  bad('amount "5."', amount('5.'), 'amount_invalid', 'amount'),
  bad('amount "1,000.00"', amount('1,000.00'), 'amount_invalid', 'amount'),
  bad('amount "0x10"', amount('0x10'), 'amount_invalid', 'amount'),
  bad('amount 1e21 (huge)', amount(1e21), 'amount_invalid', 'amount'),
  bad('amount 1e-7 (tiny)', amount(1e-7), 'amount_invalid', 'amount'),
  bad(
    'amount 1e2 (a JSON exponent literal)',
    raw('{"amount":1e2,"currency":"USD"}'),
    'amount_invalid',
    'amount',
  ),
  bad(
    'amount 0.1000000000000000001 (more digits than a double keeps)',
    raw('{"amount":0.1000000000000000001,"currency":"USD"}'),
    'amount_invalid',
    'amount',
  ),
  bad(
    'amount 99999999999999999999 (raw integer)',
    raw('{"amount":99999999999999999999,"currency":"USD"}'),
    'amount_invalid',
    'amount',
  ),
  bad('amount 1000000 (over 999,999.99)', amount(1_000_000), 'amount_invalid', 'amount', /999999\.99/),
  bad('amount "999999.991"', amount('999999.991'), 'amount_invalid', 'amount'),
  bad('amount "1000000.00"', amount('1000000.00'), 'amount_invalid', 'amount'),
  // Currencies.
  bad('currency "usdx" (four letters)', currency('usdx'), 'currency_unsupported', 'currency'),
  bad('currency "eur" (lower case, still not USD)', currency('eur'), 'currency_unsupported', 'currency'),
  bad('currency "XYZ" (unknown)', currency('XYZ'), 'currency_unsupported', 'currency'),
  bad('currency "EUR" (no collections in EUR)', currency('EUR'), 'currency_unsupported', 'currency'),
  bad('currency "" (empty)', currency(''), 'currency_unsupported', 'currency'),
  // E-mail addresses.
  bad('email "nope"', field('email', 'nope'), 'email_invalid', 'email'),
  bad('email "a@"', field('email', 'a@'), 'email_invalid', 'email'),
  bad('email "@b.c"', field('email', '@b.c'), 'email_invalid', 'email'),
  bad('email of 300 characters', field('email', `${'a'.repeat(288)}@example.com`), 'email_invalid', 'email'),
  bad('email 42 (not a string)', field('email', 42), 'email_invalid', 'email'),
  // References.
  bad('reference "" (empty)', field('reference', ''), 'reference_invalid', 'reference'),
  bad('reference of 101 characters', field('reference', 'r'.repeat(101)), 'reference_invalid', 'reference'),
  bad('reference with a space', field('reference', 'order 42'), 'reference_invalid', 'reference'),
  bad('reference with a slash', field('reference', 'order/42'), 'reference_invalid', 'reference'),
  bad('reference with unicode', field('reference', 'café-42'), 'reference_invalid', 'reference'),
  bad('reference 42 (not a string)', field('reference', 42), 'reference_invalid', 'reference'),
  // Unknown fields: typos must not pass silently.
  bad('unknown field foo', field('foo', 'bar'), 'parameter_unknown', 'foo', /foo/),
  bad(
    'typo "ammount"',
    { body: { ammount: 10, currency: 'USD' } },
    'parameter_unknown',
    'ammount',
    /ammount/,
  ),
  bad('typo "referense" beside valid fields', field('referense', 'x'), 'parameter_unknown', 'referense'),
  // Extension fields.
  bad('expires_in 10 (under 1800)', field('expires_in', 10), 'parameter_invalid', 'expires_in'),
  bad('expires_in 100000 (over 86400)', field('expires_in', 100_000), 'parameter_invalid', 'expires_in'),
  bad('expires_in "3600" (a string)', field('expires_in', '3600'), 'parameter_invalid', 'expires_in'),
  bad('expires_in 3600.5 (not an integer)', field('expires_in', 3600.5), 'parameter_invalid', 'expires_in'),
  bad('redirect_url "ftp://x"', field('redirect_url', 'ftp://x'), 'url_invalid', 'redirect_url'),
  bad('redirect_url "not a url"', field('redirect_url', 'not a url'), 'url_invalid', 'redirect_url'),
  bad('metadata "x" (not an object)', field('metadata', 'x'), 'parameter_invalid', 'metadata'),
  bad('metadata [] (an array)', field('metadata', []), 'parameter_invalid', 'metadata'),
  bad(
    'metadata with a number value',
    field('metadata', { order: 42 }),
    'parameter_invalid',
    'metadata.order',
  ),
  bad(
    'description over 1000 characters',
    field('description', 'd'.repeat(1001)),
    'parameter_invalid',
    'description',
  ),
  bad('description with U+0000', field('description', 'a\u0000b'), 'parameter_invalid', 'description'),
  bad('metadata value with U+0000', field('metadata', { k: 'v\u0000' }), 'parameter_invalid', 'metadata.k'),
  // Media type and JSON.
  bad('content-type text/plain', raw(JSON.stringify(base), 'text/plain'), 'unsupported_media_type'),
  bad(
    'content-type multipart/form-data (form-encoded bodies are read: test/api/http/form-bodies.test.ts)',
    raw(
      '--zz\r\nContent-Disposition: form-data; name="amount"\r\n\r\n10\r\n--zz--\r\n',
      'multipart/form-data; boundary=zz',
    ),
    'unsupported_media_type',
  ),
  bad('a body without a content-type', raw(JSON.stringify(base), null), 'unsupported_media_type'),
  bad(
    'content-type application/jsonp',
    raw(JSON.stringify(base), 'application/jsonp'),
    'unsupported_media_type',
  ),
  bad('truncated JSON {"amount":', raw('{"amount":'), 'invalid_json'),
  bad("single-quoted JSON {'a':1}", raw("{'a':1}"), 'invalid_json'),
  bad('JSON with a trailing comma', raw('{"amount":10,"currency":"USD",}'), 'invalid_json'),
  bad('a JSON array body', raw(JSON.stringify([base])), 'invalid_json', undefined, /JSON object/),
  bad('a JSON string body', raw('"amount=10"'), 'invalid_json', undefined, /JSON object/),
  bad('a JSON null body', raw('null'), 'invalid_json', undefined, /JSON object/),
  bad(
    'a body over 64 KiB',
    field('description', 'x'.repeat(70 * 1024)),
    'payload_too_large',
    undefined,
    /64 KiB/,
  ),
  // Authentication.
  bad('no Authorization header', withAuth('none'), 'api_key_missing'),
  bad('Authorization: Basic xyz', withAuth({ header: 'Basic xyz' }), 'api_key_missing'),
  bad('Authorization: Bearer (no key)', withAuth({ header: 'Bearer ' }), 'api_key_missing'),
  bad('a garbled sk_test_ key', withAuth({ header: 'Bearer sk_test_<$%!>;DROP' }), 'api_key_missing'),
  bad(
    'a key without the sk_test_ prefix',
    withAuth({ header: 'Bearer abcdefghijklmnop' }),
    'api_key_missing',
  ),
  bad(
    'a well-formed but unknown sk_test_ key',
    withAuth({ header: `Bearer sk_test_${'Z'.repeat(32)}` }),
    'api_key_invalid',
  ),
  bad('the public key', withAuth('public'), 'secret_key_required'),
  bad('a revoked secret key', withAuth('revoked'), 'api_key_invalid'),
];

function authorizationFor(auth: Auth): string | undefined {
  if (typeof auth === 'object') return auth.header;
  if (auth === 'secret') return `Bearer ${m.secretKey}`;
  if (auth === 'public') return `Bearer ${m.publicKey}`;
  if (auth === 'revoked') return `Bearer ${revokedKey}`;
  return undefined;
}

function send(request: BadRequest): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  const authorization = authorizationFor(request.auth ?? 'secret');
  if (authorization !== undefined) headers.authorization = authorization;
  if (request.raw !== undefined) {
    const type = request.contentType === undefined ? JSON_TYPE : request.contentType;
    if (type !== null) headers['content-type'] = type;
    return t.rest('POST', '/v1/collect', { rawBody: request.raw, headers });
  }
  return t.rest('POST', '/v1/collect', { body: request.body, headers });
}

interface ErrorBody {
  status: string;
  error: { type: string; code: string; message: string; param?: string };
  request_id: string;
}

describe('malformed POST /v1/collect', () => {
  it('has a broad table', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(45);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES)('$name → $status $code', async ({ request, status, code, param, message }) => {
    const before = await t.countRows(collections, m.id);
    const revokedBefore = await t.countRows(collections, rolled.id);
    const res = await send(request);
    const body = res.body as unknown as ErrorBody;
    expect({ status: res.status, code: body?.error?.code }).toEqual({ status, code });
    expect(body.status).toBe('error');
    expect(body.error.type).toBe(ERROR_REGISTRY[code].type);
    expect(body.error.param).toBe(param);
    expect(typeof body.error.message).toBe('string');
    expect(body.error.message.length).toBeGreaterThan(0);
    if (message) expect(body.error.message).toMatch(message);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('request-id')).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(body.request_id).toBe(res.headers.get('request-id'));
    expect(await t.countRows(collections, m.id)).toBe(before);
    expect(await t.countRows(collections, rolled.id)).toBe(revokedBefore);
  });

  it('control: the same request made well-formed succeeds and writes one row', async () => {
    const before = await t.countRows(collections, m.id);
    const res = await send({ body: { ...base, amount: '999999.99', email: 'payer@example.com' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(await t.countRows(collections, m.id)).toBe(before + 1);
  });

  it("control: the rolled merchant's new key works, so the revoked case fails for the key alone", async () => {
    const res = await t.rest('GET', '/v1/collections', { key: rolledKeys.secretKey });
    expect(res.status).toBe(200);
  });
});

const CREATE = `mutation($input: CreateCollectionInput!) {
  createCollection(input: $input) {
    __typename
    ... on MutationCreateCollectionSuccess { data { id } }
    ... on SandbankError { code type message param httpStatus }
  }
}`;

interface CreateResult {
  createCollection: {
    __typename: string;
    code?: string;
    type?: string;
    message?: string;
    param?: string | null;
    httpStatus?: number;
  };
}

interface GqlCase {
  name: string;
  input: Record<string, unknown>;
  /** The same request over REST. */
  rest: BadRequest;
  code: ErrorCode;
  param: string;
}

const GQL_CASES: GqlCase[] = [
  {
    name: 'amount "1.234"',
    input: { amount: '1.234', currency: 'USD' },
    rest: amount('1.234'),
    code: 'amount_invalid',
    param: 'amount',
  },
  {
    name: 'amount "-5"',
    input: { amount: '-5', currency: 'USD' },
    rest: amount('-5'),
    code: 'amount_invalid',
    param: 'amount',
  },
  {
    name: 'amount "0"',
    input: { amount: '0', currency: 'USD' },
    rest: amount('0'),
    code: 'amount_invalid',
    param: 'amount',
  },
  {
    name: 'amount 1000000',
    input: { amount: 1_000_000, currency: 'USD' },
    rest: amount(1_000_000),
    code: 'amount_invalid',
    param: 'amount',
  },
  {
    name: 'currency EUR',
    input: { amount: '10', currency: 'EUR' },
    rest: currency('EUR'),
    code: 'currency_unsupported',
    param: 'currency',
  },
  {
    name: 'email "nope"',
    input: { amount: '10', currency: 'USD', email: 'nope' },
    rest: field('email', 'nope'),
    code: 'email_invalid',
    param: 'email',
  },
  {
    name: 'reference with a space',
    input: { amount: '10', currency: 'USD', reference: 'a b' },
    rest: field('reference', 'a b'),
    code: 'reference_invalid',
    param: 'reference',
  },
  {
    name: 'redirectUrl "ftp://x"',
    input: { amount: '10', currency: 'USD', redirectUrl: 'ftp://x' },
    rest: field('redirect_url', 'ftp://x'),
    code: 'url_invalid',
    param: 'redirect_url',
  },
  {
    name: 'expiresIn 10',
    input: { amount: '10', currency: 'USD', expiresIn: 10 },
    rest: field('expires_in', 10),
    code: 'parameter_invalid',
    param: 'expires_in',
  },
  {
    name: 'description with U+0000',
    input: { amount: '10', currency: 'USD', description: 'a\u0000b' },
    rest: field('description', 'a\u0000b'),
    code: 'parameter_invalid',
    param: 'description',
  },
];

describe('malformed createCollection over GraphQL', () => {
  it.each(GQL_CASES)('$name → $code, as over REST, and no row', async ({ input, rest, code, param }) => {
    const before = await t.countRows(collections, m.id);
    const restRes = await send(rest);
    expect(restRes.status).toBe(ERROR_REGISTRY[code].status);
    expect((restRes.body as unknown as ErrorBody).error).toMatchObject({ code, param });
    const res = await t.gql<CreateResult>(CREATE, { input }, { key: m.secretKey });
    expect(res.errors).toBeUndefined();
    expect(res.data.createCollection).toMatchObject({
      __typename: 'SandbankError',
      code,
      type: ERROR_REGISTRY[code].type,
      httpStatus: ERROR_REGISTRY[code].status,
      // The service reports the wire name of the field, as REST does.
      param,
    });
    expect(await t.countRows(collections, m.id)).toBe(before);
  });

  it('a currency literal outside the enum is a validation error before execution', async () => {
    const before = await t.countRows(collections, m.id);
    const literal = await t.gql(
      'mutation { createCollection(input: {amount: "10", currency: "XYZ"}) { __typename } }',
      {},
      { key: m.secretKey },
    );
    expect(literal.data).toBeUndefined();
    expect(literal.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(literal.errors?.[0]?.message).toMatch(/CurrencyCode/);
    const enumValue = await t.gql(
      'mutation { createCollection(input: {amount: "10", currency: XYZ}) { __typename } }',
      {},
      { key: m.secretKey },
    );
    expect(enumValue.data).toBeUndefined();
    expect(enumValue.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variable = await t.gql(CREATE, { input: { amount: '10', currency: 'XYZ' } }, { key: m.secretKey });
    expect(variable.data).toBeUndefined();
    expect(variable.errors?.[0]?.message).toMatch(/CurrencyCode/);
    expect(await t.countRows(collections, m.id)).toBe(before);
  });

  it('control: a valid createCollection writes one row', async () => {
    const before = await t.countRows(collections, m.id);
    const res = await t.gql<CreateResult>(
      CREATE,
      { input: { amount: '10.50', currency: 'USD' } },
      { key: m.secretKey },
    );
    expect(res.data.createCollection.__typename).toBe('MutationCreateCollectionSuccess');
    expect(await t.countRows(collections, m.id)).toBe(before + 1);
  });
});
