// biome-ignore-all lint/suspicious/noTemplateCurlyInString: fixture references are written ${step:field} in plain strings.
/**
 * Fixtures (docs/fixtures.md): a document's steps run through the public API as the caller, with
 * references to earlier answers and clock steps; bad documents are refused whole; a failing step
 * stops the run; the shipped fixtures apply cleanly to a fresh merchant, whose ledger then sums to
 * zero. Over REST, GraphQL and the dashboard's form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../src/modules/ledger/ledger.queries.ts';
import { signedIn } from './fixtures/dashboard.ts';
import { createTestApp, type TestApp, type TestMerchant } from './harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, unknown>;
interface Step {
  index: number;
  id: string | null;
  method: string;
  path: string;
  status: number;
  object: Json;
}

const apply = (m: TestMerchant, body: unknown, headers: Record<string, string> = {}) =>
  t.rest<Json & { steps: Step[]; error: Json & { fixture?: { failed_step: Step; ran: Step[] } } }>(
    'POST',
    '/v1/simulate/fixtures',
    { key: m.secretKey, body, headers },
  );
const get = (m: TestMerchant, path: string) => t.rest<Json>('GET', path, { key: m.secretKey });
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2099, cvc: '123' });

/** What the merchant has: its events, its clock's offset and its USD balance. */
async function snapshot(m: TestMerchant) {
  const events = (await get(m, '/v1/events?limit=100')).body.data as Json[];
  const clock = (await get(m, '/v1/clock')).body;
  const balances = (await get(m, '/v1/balances')).body.data as Json[];
  return { events: events.map((e) => e.id), offset: clock.offset_ms, frozen: clock.frozen, balances };
}

async function expectLedgerSumsToZero(m: TestMerchant) {
  const check = await verifyLedger(t.database.db, m.id);
  expect(check.mismatches).toEqual([]);
  expect(Object.keys(check.sums).length).toBeGreaterThan(0);
  for (const sum of Object.values(check.sums)) expect(sum).toBe(0n);
}

describe('a document', () => {
  it('runs its steps in order as the caller, resolving references in paths and bodies', async () => {
    const m = await t.merchant();
    const res = await apply(m, {
      steps: [
        {
          id: 'cust_payment',
          method: 'POST',
          path: '/v1/collect',
          body: { amount: '25.00', currency: 'USD', reference: 'fx-1', metadata: { order: 'o-7' } },
        },
        {
          id: 'pay',
          method: 'POST',
          path: '/v1/simulate/collections/${cust_payment:reference}/pay',
          body: { method: 'card', card: card('4242424242424242') },
        },
        {
          id: 'again',
          method: 'POST',
          path: '/v1/collect',
          // A whole-string reference keeps the JSON type (25, a number; an object); inside a longer
          // string it is text.
          body: {
            amount: '${cust_payment:amount}',
            currency: 'USD',
            reference: 'after-${cust_payment:reference}',
            metadata: '${cust_payment:metadata}',
            description: 'paid with ${pay:payment.last4}',
          },
        },
        { id: 'read', method: 'GET', path: '/v1/collections/${again:id}' },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ object: 'fixture_run', name: null });
    expect(res.body.steps.map((s) => [s.index, s.id, s.method, s.path, s.status])).toEqual([
      [0, 'cust_payment', 'POST', '/v1/collect', 200],
      [1, 'pay', 'POST', '/v1/simulate/collections/fx-1/pay', 200],
      [2, 'again', 'POST', '/v1/collect', 200],
      [3, 'read', 'GET', `/v1/collections/${res.body.steps[2]?.object.id}`, 200],
    ]);
    expect(res.body.steps[1]?.object).toMatchObject({ object: 'collection', state: 'succeeded' });
    expect(res.body.steps[3]?.object).toMatchObject({
      reference: 'after-fx-1',
      amount: 25,
      metadata: { order: 'o-7' },
      description: 'paid with 4242',
    });
    // The public operations ran: their objects, events and ledger are the caller's.
    expect((await get(m, '/v1/collections/fx-1')).body.state).toBe('succeeded');
    const types = ((await get(m, '/v1/events?limit=100')).body.data as Json[]).map((e) => e.type);
    expect(types).toContain('collection.succeeded');
    await expectLedgerSumsToZero(m);
  });

  it('clock steps freeze and move the clock as POST /v1/clock/* do, running the work that falls due', async () => {
    const m = await t.merchant();
    const res = await apply(m, {
      steps: [
        { clock: { freeze: true } },
        {
          id: 'soon',
          method: 'POST',
          path: '/v1/collect',
          body: { amount: 1, currency: 'USD', expires_in: 1800 },
        },
        { id: 'three_days', clock: { advance: 'P3D' } },
        { clock: { advance: 'PT1H30M' } },
        { clock: { seconds: 60 } },
        { id: 'pull', method: 'POST', path: '/v1/transfers', body: transfer('debit') },
        { id: 'settled', clock: { next: 'settlement' } },
        { id: 'read', method: 'GET', path: '/v1/transfers/${pull:id}' },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const [frozen, , days, , , , settled, read] = res.body.steps;
    expect(frozen?.object).toMatchObject({ object: 'clock', frozen: true });
    const start = Date.parse(String(frozen?.object.now));
    expect(Date.parse(String(days?.object.now)) - start).toBe(3 * 86_400_000);
    expect(days?.object.ran).toEqual([expect.objectContaining({ kind: 'collection.expire', state: 'done' })]);
    expect(settled?.path).toBe('/v1/clock/advance');
    expect(read?.object.state).toBe('settled');
    const clock = (await get(m, '/v1/clock')).body;
    expect(clock.frozen).toBe(true);
    expect(Date.parse(String(clock.now))).toBeGreaterThanOrEqual(start + 3 * 86_400_000 + 5460_000);

    // `to` moves to an instant, never back (a later fixture answers the clock's own 400).
    const to = new Date(Date.parse(String(clock.now)) + 86_400_000).toISOString();
    const moved = await apply(m, { steps: [{ clock: { to } }] });
    expect(moved.body.steps[0]?.object.now).toBe(to);
    const back = await apply(m, { steps: [{ clock: { to: '2001-01-01T00:00:00Z' } }] });
    expect(back.status).toBe(422);
    expect(back.body.error.message).toContain('clock_backwards');
  });
});

function transfer(direction: 'credit' | 'debit', account = '000123456789') {
  return {
    rail: 'ach',
    direction,
    amount: '40.00',
    currency: 'USD',
    counterparty: { name: 'Payer', routing_number: '021000021', account_number: account },
  };
}

describe('a bad document', () => {
  const collect = { id: 'c', method: 'POST', path: '/v1/collect', body: { amount: 5, currency: 'USD' } };
  const cases: [string, unknown, string, RegExp][] = [
    ['no steps', { steps: [] }, 'steps', /steps/],
    ['neither steps nor name', {}, 'steps', /steps/],
    ['an unknown field of a step', { steps: [{ ...collect, bogus: 1 }] }, 'steps.0.bogus', /bogus/],
    ['a method other than GET or POST', { steps: [{ ...collect, method: 'DELETE' }] }, 'steps.0.method', /./],
    [
      'a reference to a step no step declares',
      { steps: [collect, { method: 'GET', path: '/v1/collections/${nobody:id}' }] },
      'steps[1].path',
      /steps\[1\].*"nobody", which no step declares/,
    ],
    [
      'a reference to a later step',
      { steps: [{ method: 'GET', path: '/v1/collections/${c:id}' }, collect] },
      'steps[0].path',
      /"c" \(steps\[1\]\), which does not come before it/,
    ],
    [
      'a reference to itself, in the body',
      { steps: [{ ...collect, body: { amount: 5, currency: 'USD', reference: 'x-${c:id}' } }] },
      'steps[0].body.reference',
      /steps\[0\] \(c\).*does not come before it/,
    ],
    [
      'a path that is no operation',
      { steps: [collect, { id: 'x', method: 'POST', path: '/v1/nowhere' }] },
      'steps[1].path',
      /steps\[1\] \(x\).*POST \/v1\/nowhere is not an operation of \/v1/,
    ],
    [
      'a GET of a POST-only path',
      { steps: [{ method: 'GET', path: '/v1/collect' }] },
      'steps[0].path',
      /not an operation/,
    ],
    [
      'a fixture inside a fixture',
      { steps: [collect, { method: 'POST', path: '/v1/simulate/fixtures', body: { name: 'decline-mix' } }] },
      'steps[1].path',
      /cannot apply fixtures/,
    ],
    ['the reset', { steps: [{ method: 'POST', path: '/v1/simulate/reset' }] }, 'steps[0].path', /reset/],
    // The URL parser reads a backslash as "/" and drops tabs: each would reach a path never checked.
    [
      'a backslash that the URL parser would read as a slash',
      { steps: [collect, { method: 'POST', path: '/v1/virtual_cards/..\\keys\\roll' }] },
      'steps[1].path',
      /may not contain/,
    ],
    [
      'a tab that the URL parser would drop',
      { steps: [collect, { method: 'POST', path: '/v1/virtual_cards/.\t./merchants', body: { name: 'x' } }] },
      'steps[1].path',
      /may not contain/,
    ],
    ['a key roll', { steps: [{ method: 'POST', path: '/v1/keys/roll' }] }, 'steps[0].path', /keys/],
    [
      'a sign-up',
      { steps: [{ method: 'POST', path: '/v1/merchants', body: { name: 'x' } }] },
      'steps[0].path',
      /merchants/,
    ],
    [
      'two clock moves in one step',
      { steps: [{ clock: { seconds: 5, next: 'settlement' } }] },
      'steps[0].clock',
      /exactly one/,
    ],
    [
      'a clock step with a path',
      { steps: [{ clock: { seconds: 5 }, path: '/v1/clock' }] },
      'steps[0].clock',
      /no method/,
    ],
    [
      'a duration in months',
      { steps: [{ clock: { advance: 'P1M' } }] },
      'steps[0].clock.advance',
      /ISO 8601/,
    ],
    ['a step without method', { steps: [{ path: '/v1/balances' }] }, 'steps[0].method', /GET or POST/],
    [
      'a GET with a body',
      { steps: [{ method: 'GET', path: '/v1/balances', body: { a: 1 } }] },
      'steps[0].body',
      /no body/,
    ],
    ['two steps with one id', { steps: [collect, collect] }, 'steps[1].id', /steps\[0\] has the same id/],
    [
      'a field path that is none',
      { steps: [collect, { method: 'GET', path: '/v1/collections/${c:}' }] },
      'steps[1].path',
      /field path/,
    ],
    [
      'more than 500 steps',
      { steps: Array.from({ length: 501 }, () => ({ clock: { seconds: 1 } })) },
      'steps',
      /500/,
    ],
    ['a name and steps', { name: 'decline-mix', steps: [collect] }, 'name', /either name/],
    [
      'an unknown shipped name',
      { name: 'no-such-fixture' },
      'name',
      /decline-mix, month-of-history, returned-ach/,
    ],
  ];

  it.each(cases)(
    '%s: 400 naming the step and the field, and nothing changes',
    async (_, body, param, message) => {
      const m = await t.merchant();
      const before = await snapshot(m);
      const res = await apply(m, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ param });
      expect(String(res.body.error.message)).toMatch(message);
      expect(await snapshot(m)).toEqual(before);
    },
  );

  it('an Idempotency-Key is refused (400), and the fixture does not run', async () => {
    const m = await t.merchant();
    const res = await apply(m, { steps: [collect] }, { 'idempotency-key': 'fx-once' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'idempotency_key_invalid' });
    expect((await get(m, '/v1/collections')).body.data).toEqual([]);
  });
});

describe('a failing step', () => {
  it('stops the run with 422 fixture_step_failed naming the step, its status and error; the steps before it are kept', async () => {
    const m = await t.merchant();
    const res = await apply(m, {
      steps: [
        {
          id: 'first',
          method: 'POST',
          path: '/v1/collect',
          body: { amount: 5, currency: 'USD', reference: 'kept' },
        },
        {
          id: 'planned_decline',
          method: 'POST',
          path: '/v1/card_payments',
          body: { amount: 5, currency: 'USD', card: card('4000000000009995') },
          expect: 402,
        },
        { id: 'declined_read', method: 'GET', path: '/v1/card_payments/${planned_decline:error.payment_id}' },
        {
          id: 'dupe',
          method: 'POST',
          path: '/v1/collect',
          body: { amount: 5, currency: 'USD', reference: 'kept' },
        },
        {
          id: 'never',
          method: 'POST',
          path: '/v1/collect',
          body: { amount: 5, currency: 'USD', reference: 'never' },
        },
      ],
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'fixture_step_failed', type: 'invalid_request_error' });
    expect(res.body.error.message).toMatch(
      /^Fixture steps\[3\] \(dupe\) failed: POST \/v1\/collect answered 409/,
    );
    const fixture = res.body.error.fixture;
    expect(fixture?.failed_step).toMatchObject({
      index: 3,
      id: 'dupe',
      status: 409,
      object: { error: { type: 'conflict_error' } },
    });
    expect(fixture?.ran.map((s) => [s.id, s.status])).toEqual([
      ['first', 200],
      ['planned_decline', 402],
      ['declined_read', 200],
    ]);
    expect(fixture?.ran[2]?.object).toMatchObject({ state: 'declined', decline_code: 'insufficient_funds' });
    expect((await get(m, '/v1/collections/kept')).status).toBe(200);
    expect((await get(m, '/v1/collections/never')).status).toBe(404);
  });

  it('a step that does not answer what it expects fails, and so does a reference to nothing', async () => {
    const m = await t.merchant();
    const approved = await apply(m, {
      steps: [
        {
          id: 'ok',
          method: 'POST',
          path: '/v1/card_payments',
          body: { amount: 5, currency: 'USD', card: card('4242424242424242') },
          expect: 402,
        },
      ],
    });
    expect(approved.status).toBe(422);
    expect(approved.body.error.message).toMatch(/steps\[0\] \(ok\) failed: .* answered 200 \(expected 402\)/);
    expect(approved.body.error.fixture?.failed_step).toMatchObject({
      status: 200,
      object: { state: 'captured' },
    });

    const missing = await apply(m, {
      steps: [
        { id: 'c', method: 'POST', path: '/v1/collect', body: { amount: 5, currency: 'USD' } },
        { id: 'r', method: 'GET', path: '/v1/collections/${c:no_such_field}' },
      ],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toContain('${c:no_such_field} names no value');
    expect(missing.body.error.fixture?.failed_step).toMatchObject({
      index: 1,
      id: 'r',
      status: null,
      object: null,
    });
    expect(missing.body.error.fixture?.ran).toHaveLength(1);

    // A value that would make the path another one once normalized is never sent.
    const dots = await apply(m, {
      steps: [
        {
          id: 'c',
          method: 'POST',
          path: '/v1/collect',
          body: { amount: 5, currency: 'USD', reference: '..' },
        },
        { method: 'GET', path: '/v1/collections/${c:reference}' },
      ],
    });
    expect(dots.status).toBe(422);
    expect(dots.body.error.message).toContain('has a "." or ".." segment');
    expect(dots.body.error.fixture?.failed_step).toMatchObject({ index: 1, status: null });
  });
});

describe('the shipped fixtures', () => {
  it('are listed by GET /v1/simulate/fixtures', async () => {
    const m = await t.merchant();
    const list = await get(m, '/v1/simulate/fixtures');
    expect(list.status).toBe(200);
    const data = list.body.data as Json[];
    expect(data.map((f) => f.name)).toEqual(['decline-mix', 'month-of-history', 'returned-ach']);
    for (const fixture of data) {
      expect(fixture).toMatchObject({ object: 'fixture', description: expect.stringMatching(/\w/) });
      expect(fixture.steps).toBe(((fixture.document as Json).steps as unknown[]).length);
    }
  });

  it('month-of-history applies to a fresh merchant: payments, declines, refunds, ACH, FX, a payout; the ledger sums to zero', async () => {
    const m = await t.merchant();
    const res = await apply(m, { name: 'month-of-history' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('month-of-history');
    const byId = new Map(res.body.steps.map((s) => [s.id, s]));
    expect(byId.get('order_1003_declined')?.status).toBe(402);
    expect(byId.get('refund_coat_hem')?.object).toMatchObject({
      object: 'refund',
      state: 'succeeded',
      amount: 50,
    });
    expect(byId.get('eur_conversion')?.object).toMatchObject({ object: 'fx_conversion', state: 'completed' });
    const clock = (await get(m, '/v1/clock')).body;
    const start = Date.parse(String(res.body.steps[0]?.object.now));
    expect(Date.parse(String(clock.now)) - start).toBeGreaterThanOrEqual(25 * 86_400_000);
    for (const id of ['subscription_pull_1', 'supplier_invoice', 'subscription_pull_2'])
      expect((await get(m, `/v1/transfers/${byId.get(id)?.object.id}`)).body.state).toBe('settled');
    expect((await get(m, `/v1/payouts/${byId.get('payout')?.object.id}`)).body.state).toBe('paid');
    const balances = (await get(m, '/v1/balances')).body.data as Json[];
    expect(balances.map((b) => b.currency).sort()).toEqual(['EUR', 'USD']);
    await expectLedgerSumsToZero(m);
  });

  it('returned-ach: R01, R02 and R29 returns; the ledger sums to zero', async () => {
    const m = await t.merchant();
    const res = await apply(m, { name: 'returned-ach' });
    expect(res.status, res.text).toBe(200);
    const byId = new Map(res.body.steps.map((s) => [s.id, s.object]));
    expect(byId.get('debit_r01_returned')).toMatchObject({ state: 'returned', return_code: 'R01' });
    expect(byId.get('credit_r02_returned')).toMatchObject({ state: 'returned', return_code: 'R02' });
    expect(byId.get('debit_r29')).toMatchObject({ state: 'returned', return_code: 'R29' });
    await expectLedgerSumsToZero(m);
    // Nothing in it is unique to one application: applied again, it runs again.
    expect((await apply(m, { name: 'returned-ach' })).status).toBe(200);
    expect((await get(m, '/v1/transfers?limit=100')).body.data).toHaveLength(6);
    await expectLedgerSumsToZero(m);
  });

  it('decline-mix: each test card declines with its code, and the 3-D Secure failure too', async () => {
    const m = await t.merchant();
    const res = await apply(m, { name: 'decline-mix' });
    expect(res.status, res.text).toBe(200);
    const declines = res.body.steps
      .filter((s) => s.status === 402)
      .map((s) => [s.id, (s.object.error as Json).decline_code]);
    expect(declines).toEqual([
      ['generic_decline', 'generic_decline'],
      ['insufficient_funds', 'insufficient_funds'],
      ['lost_card', 'lost_card'],
      ['stolen_card', 'stolen_card'],
      ['expired_card', 'expired_card'],
      ['incorrect_cvc', 'incorrect_cvc'],
      ['processing_error', 'processing_error'],
      ['fraudulent', 'fraudulent'],
      ['three_ds_failed', expect.any(String)],
    ]);
    const payments = (await get(m, '/v1/card_payments?limit=100')).body.data as Json[];
    expect(payments.filter((p) => p.state === 'declined')).toHaveLength(9);
    await expectLedgerSumsToZero(m);
  });

  it("never touch another merchant's objects, clock or balances", async () => {
    const a = await t.merchant('Applies');
    const b = await t.merchant('Bystander');
    await t.rest('POST', '/v1/collect', {
      key: b.secretKey,
      body: { amount: 3, currency: 'USD', reference: 'mine' },
    });
    const before = await snapshot(b);
    expect((await apply(a, { name: 'month-of-history' })).status).toBe(200);
    expect(await snapshot(b)).toEqual(before);
    expect((await get(b, '/v1/collections')).body.data).toHaveLength(1);
  });
});

describe('the steps of a fixture', () => {
  it('count once against the rate limit (the request that applies them) and get no chaos', async () => {
    const limited = await createTestApp({ rateLimitPerSecond: 2, database: t.database });
    const m = await limited.merchant();
    const chaos = await limited.rest('POST', '/v1/simulate/chaos', {
      key: m.secretKey,
      body: { faults: 'error=1; status=503' },
    });
    expect(chaos.status).toBe(200);
    // Every request of the merchant but the fixture's own is now faulted; its 8 steps are not.
    const steps = Array.from({ length: 8 }, () => ({ method: 'GET', path: '/v1/balances' }));
    const res = await limited.rest<{ steps: Step[] }>('POST', '/v1/simulate/fixtures', {
      key: m.secretKey,
      body: { steps },
      headers: { 'sandbank-chaos': 'none' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps.map((s) => s.status)).toEqual(Array(8).fill(200));
    expect((await t.rest('GET', '/v1/balances', { key: m.secretKey })).status).toBe(503);
  });
});

describe('GraphQL', () => {
  const mutation = `mutation($name: String, $steps: String, $description: String) {
    applyFixtures(name: $name, steps: $steps, description: $description) {
      ... on MutationApplyFixturesSuccess { data { name steps { index stepId method path status object } } }
      ... on SandbankError { code message }
    }
  }`;

  it('applyFixtures applies a shipped fixture or a document; shippedFixtures lists them', async () => {
    const m = await t.merchant();
    const listed = await t.gql<{ shippedFixtures: Json[] }>(
      '{ shippedFixtures { name description } }',
      {},
      { key: m.secretKey },
    );
    expect(listed.data.shippedFixtures.map((f) => f.name)).toEqual([
      'decline-mix',
      'month-of-history',
      'returned-ach',
    ]);

    const byName = await t.gql<{ applyFixtures: { data: { name: string; steps: Json[] } } }>(
      mutation,
      { name: 'decline-mix' },
      { key: m.secretKey },
    );
    expect(byName.errors).toBeUndefined();
    expect(byName.data.applyFixtures.data.name).toBe('decline-mix');
    expect(byName.data.applyFixtures.data.steps[1]).toMatchObject({
      stepId: 'generic_decline',
      method: 'post',
      status: 402,
    });

    const steps = JSON.stringify([
      {
        id: 'c',
        method: 'POST',
        path: '/v1/collect',
        body: { amount: 2, currency: 'USD', reference: 'gql-fx' },
      },
      { method: 'GET', path: '/v1/collections/${c:reference}' },
    ]);
    const byDocument = await t.gql<{ applyFixtures: { data: { name: null; steps: Json[] } } }>(
      mutation,
      { steps, description: 'two steps' },
      { key: m.secretKey },
    );
    const [, read] = byDocument.data.applyFixtures.data.steps;
    expect(read).toMatchObject({ stepId: null, method: 'get', path: '/v1/collections/gql-fx', status: 200 });
    expect(JSON.parse(String(read?.object))).toMatchObject({ object: 'collection', reference: 'gql-fx' });
  });

  it('answers bad documents and failed steps as SandbankError, and refuses an Idempotency-Key', async () => {
    const m = await t.merchant();
    const cases: [Json, string, RegExp][] = [
      [{ steps: '[{"method": "GET", "path": "/v1/nowhere"}]' }, 'parameter_invalid', /not an operation/],
      [{ steps: 'not json' }, 'parameter_invalid', /not valid JSON/],
      [
        { steps: '[{"method": "GET", "path": "/v1/balances", "bogus": 1}]' },
        'parameter_unknown',
        /steps\.0\.bogus/,
      ],
      [{ name: 'decline-mix', steps: '[{"clock": {"seconds": 1}}]' }, 'parameter_invalid', /either name/],
      [{}, 'parameter_invalid', /steps/],
      [
        {
          steps:
            '[{"id": "a", "method": "POST", "path": "/v1/collect", "body": {"amount": 1, "currency": "EUR"}}]',
        },
        'fixture_step_failed',
        /steps\[0\] \(a\) failed/,
      ],
    ];
    for (const [variables, code, message] of cases) {
      const res = await t.gql<{ applyFixtures: Json }>(mutation, variables, { key: m.secretKey });
      expect(res.data.applyFixtures, JSON.stringify(variables)).toMatchObject({ code });
      expect(String(res.data.applyFixtures.message)).toMatch(message);
    }
    const keyed = await t.gql<{ applyFixtures: Json }>(
      mutation,
      { name: 'decline-mix' },
      { key: m.secretKey, headers: { 'idempotency-key': 'k' } },
    );
    expect(keyed.data.applyFixtures).toMatchObject({ code: 'idempotency_key_invalid' });
    expect((await get(m, '/v1/card_payments')).body.data).toEqual([]);
  });
});

describe('the dashboard form', () => {
  it('applies a shipped fixture with the CSRF token and lists its steps on the keys page', async () => {
    const m = await t.merchant('Dashboard Fixtures');
    const browser = await signedIn(() => t, m);
    const page = await browser.get('/dashboard/keys');
    expect(page.html).toMatch(
      /<form method="post" action="\/dashboard\/fixtures"><input type="hidden" name="_csrf"/,
    );
    for (const name of ['decline-mix', 'month-of-history', 'returned-ach'])
      expect(page.html).toContain(`<option value="${name}"`);

    expect((await browser.post('/dashboard/fixtures', { _csrf: 'forged', name: 'decline-mix' })).status).toBe(
      403,
    );
    expect((await get(m, '/v1/card_payments')).body.data).toEqual([]);

    const unknown = await browser.post('/dashboard/fixtures', { name: 'nope' });
    expect(unknown.status).toBe(303);
    expect((await browser.get('/dashboard/keys')).html).toContain('No shipped fixture is named');

    const done = await browser.post('/dashboard/fixtures', { name: 'decline-mix' });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/keys#fixtures');
    const after = await browser.get('/dashboard/keys');
    expect(after.html).toContain('Fixture decline-mix applied: 12 steps ran.');
    expect(after.html).toMatch(/data-testid="fixture-steps">.*fraudulent: POST \/v1\/card_payments → 402/s);
    expect((await get(m, '/v1/card_payments?limit=100')).body.data).toHaveLength(10);
  });
});
