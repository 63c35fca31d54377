/**
 * Events on demand: POST /v1/simulate/events {type, set} produces an event of any type the sandbox
 * emits by driving real objects through their own operations. Every type of listEventTypes() is
 * triggered on a fresh merchant; the event is listed, refers to the object, and the ledger balances.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipes } from '../../../src/modules/trigger/trigger.recipes.ts';
import { listEventTypes } from '../../../src/modules/webhooks/webhooks.event-types.ts';
import { signedIn } from '../../support/dashboard.ts';
import { createTestApp, debugLogCapture, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { expectLedgerBalanced } from '../../support/ledger.ts';
import { tableCells } from '../../support/markdown.ts';
import { Receiver } from '../../support/receiver.ts';

type Json = Record<string, unknown>;

let t: TestApp;
const errors = debugLogCapture('error');
beforeAll(async () => {
  t = await createTestApp({ logger: errors.logger });
});
afterAll(async () => {
  await t?.close();
});

const expectLedgerBalancedOf = (m: TestMerchant) => expectLedgerBalanced(t.database.db, m.id);

/** Rows the merchant owns, by the lists of the API (objects a refused trigger must not create). */
async function objectCounts(m: TestMerchant): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const path of [
    '/v1/collections',
    '/v1/card_payments',
    '/v1/transfers',
    '/v1/payouts',
    '/v1/virtual_cards',
    '/v1/fx/quotes',
    '/v1/fx/conversions',
    '/v1/fx/settlements',
    '/v1/inbound_transfers',
    '/v1/disputes',
    '/v1/balance_transactions',
    '/v1/events',
  ]) {
    const res = await t.get(m, `${path}?limit=100`);
    expect(res.status, res.text).toBe(200);
    counts[path] = (res.body.data as unknown[]).length;
  }
  return counts;
}

/** The merchant's balances, as GET /v1/balances answers them. */
async function balances(m: TestMerchant): Promise<unknown> {
  const res = await t.get(m, '/v1/balances');
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The recipes as the table of docs/guide/trigger.md. */
function recipesTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = listEventTypes().map((type) => {
    const recipe = recipes().get(type);
    if (!recipe) return `| \`${type}\` | (no recipe) | | |`;
    const keys = recipe.accepts.map((key) => `\`${key}\``).join(', ') || 'none';
    return `| \`${type}\` | ${cell(recipe.drives)} | ${keys} | ${recipe.movesClock ? 'yes' : 'no'} |`;
  });
  return [
    '| Event type | What it drives | Overrides | Moves the clock |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

describe('every event type has a recipe', () => {
  it('docs/guide/trigger.md lists every recipe as the code has it', () => {
    const path = join(import.meta.dirname, '..', '..', '..', 'docs', 'guide', 'trigger.md');
    const doc = readFileSync(path, 'utf8');
    const section = /<!-- recipes:start -->\n([\s\S]*)<!-- recipes:end -->/;
    // Compared cell by cell: the formatter pads the columns (npx biome format docs/guide/trigger.md).
    const cells = tableCells;
    if (process.env.SANDBANK_WRITE_DOCS === '1')
      writeFileSync(
        path,
        doc.replace(section, `<!-- recipes:start -->\n${recipesTable()}\n<!-- recipes:end -->`),
      );
    expect(
      cells(section.exec(doc)?.[1] ?? ''),
      'docs/guide/trigger.md drifted: run this test with SANDBANK_WRITE_DOCS=1',
    ).toEqual(cells(recipesTable()));
  });

  it('listEventTypes() and the recipes are the same set', () => {
    expect([...recipes().keys()].sort()).toEqual([...listEventTypes()].sort());
  });

  it('GET /v1/simulate/events/recipes lists one per type, in the order of GET /v1/event_types', async () => {
    const m = await t.merchant();
    const res = await t.get(m, '/v1/simulate/events/recipes');
    expect(res.status, res.text).toBe(200);
    const data = res.body.data as Json[];
    expect(data.map((r) => r.type)).toEqual(listEventTypes());
    expect(data.find((r) => r.type === 'transfer.returned')).toMatchObject({
      accepts: expect.arrayContaining(['amount', 'return_code', 'rail', 'metadata.*']),
      moves_clock: false,
    });
  });
});

describe.each(listEventTypes())('%s', (type) => {
  it('is triggered on a fresh merchant: listed in GET /v1/events about its object, the ledger balanced', async () => {
    const m = await t.merchant(`Trigger ${type}`);
    if (type === 'webhook.test')
      expect((await t.post(m, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' })).status).toBe(200);
    const res = await t.post(m, '/v1/simulate/events', { type });
    expect(res.status, `${res.text}\n${errors.text()}`).toBe(200);
    const body = res.body as {
      type: string;
      object_id: string;
      event: { id: string; type: string; data: { object: { id: string } } };
      events: { id: string; type: string; object_id: string }[];
    };
    expect(body.type).toBe(type);
    expect(body.event.type).toBe(type);
    expect(body.event.data.object.id).toBe(body.object_id);
    expect(body.events.map((e) => e.id)).toContain(body.event.id);
    const listed = await t.get(m, `/v1/events?type=${type}&limit=100`);
    const found = (listed.body.data as Json[]).find((e) => e.id === body.event.id);
    expect(found, listed.text).toMatchObject({ type, data: { object: { id: body.object_id } } });
    // Every event of the run is the merchant's, in GET /v1/events.
    const all = await t.get(m, '/v1/events?limit=100');
    expect((all.body.data as Json[]).map((e) => e.id)).toEqual(
      expect.arrayContaining(body.events.map((e) => e.id)),
    );
    await expectLedgerBalancedOf(m);
  });
});

describe('overrides', () => {
  it('apply to the objects: amount and return code on a returned transfer, metadata on a collection', async () => {
    const m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/events', {
      type: 'transfer.returned',
      set: { amount: '12.50', return_code: 'R02', 'metadata.order': 'A-1' },
    });
    expect(res.status, res.text).toBe(200);
    const transfer = await t.get(m, `/v1/transfers/${res.body.object_id}`);
    expect(transfer.body).toMatchObject({
      amount: 12.5,
      state: 'returned',
      return_code: 'R02',
      metadata: { order: 'A-1' },
    });
    const collection = await t.post(m, '/v1/simulate/events', {
      type: 'collection.succeeded',
      set: { amount: 7, reference: 'order-77' },
    });
    expect(collection.status, collection.text).toBe(200);
    expect((collection.body.event as { data: { object: Json } }).data.object).toMatchObject({
      amount: 7,
      reference: 'order-77',
      state: 'succeeded',
    });
  });

  it('a key the recipe does not accept is refused with 400, naming it and the accepted keys; nothing is created', async () => {
    const m = await t.merchant();
    const before = await objectCounts(m);
    const res = await t.post(m, '/v1/simulate/events', {
      type: 'collection.created',
      set: { amount: '5', return_code: 'R01' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 'error',
      error: { code: 'override_not_applicable', param: 'set.return_code' },
    });
    const message = (res.body.error as Json).message as string;
    expect(message).toContain('return_code');
    expect(message).toContain('amount, currency, email, reference, description, metadata.*');
    expect(await objectCounts(m)).toEqual(before);
  });

  it('a bad value gets the error of the operation it goes to; nothing is created', async () => {
    const m = await t.merchant();
    const before = await objectCounts(m);
    const cases: [string, Json, string, string][] = [
      ['transfer.returned', { amount: 'ten' }, 'amount_invalid', 'set.amount'],
      ['payout.paid', { currency: 'EUR' }, 'currency_unsupported', 'set.currency'],
      ['collection.created', { reference: 'bad reference!' }, 'reference_invalid', 'set.reference'],
      ['transfer.returned', { return_code: 'R99' }, 'parameter_invalid', 'set.return_code'],
      ['payout.returned', { return_code: 'R01' }, 'parameter_invalid', 'set.return_code'],
      ['transfer.returned', { return_code: 'R68' }, 'parameter_invalid', 'set.return_code'],
      // A recipe's transfer is CCD: R10 is for consumer entries.
      ['transfer.returned', { return_code: 'R10' }, 'parameter_invalid', 'set.return_code'],
      // A checkout's bank debit is WEB: R29 is for corporate entries.
      ['collection.failed', { return_code: 'R29' }, 'parameter_invalid', 'set.return_code'],
      ['inbound_transfer.completed', { amount: '10000000.01' }, 'amount_exceeds_rail_limit', 'set.amount'],
      // A credit is funded by a top-up first: the rail's limit is checked before it.
      [
        'transfer.returned',
        { rail: 'same_day_ach', direction: 'credit', amount: '1000000.01' },
        'amount_exceeds_rail_limit',
        'set.amount',
      ],
      [
        'payout.paid',
        { rail: 'same_day_ach', amount: '1000000.01' },
        'amount_exceeds_rail_limit',
        'set.amount',
      ],
      // The inbound entry would be created and settled before its return refused these.
      ['inbound_transfer.returned', { return_code: 'R29' }, 'parameter_invalid', 'set.return_code'],
      ['inbound_transfer.returned', { return_code: 'R23' }, 'parameter_invalid', 'set.return_code'],
      ['inbound_transfer.returned', { return_code: 'R13' }, 'parameter_invalid', 'set.return_code'],
      [
        'inbound_transfer.returned',
        { direction: 'credit', return_code: 'R01' },
        'parameter_invalid',
        'set.return_code',
      ],
      ['transfer.return_dishonored', { dishonor_code: 'R68' }, 'parameter_invalid', 'set.dishonor_code'],
      ['payout.return_contested', { contest_code: 'R73' }, 'parameter_invalid', 'set.contest_code'],
      ['transfer.settled', { rail: 'rtp' }, 'parameter_invalid', 'set.rail'],
      ['card_payment.declined', { decline_code: 'nope' }, 'parameter_invalid', 'set.decline_code'],
      ['fx_quote.used', { source_amount: '1.234' }, 'amount_invalid', 'set.source_amount'],
      ['fx_settlement.paid', { target_currency: 'CHF' }, 'currency_unsupported', 'set.target_currency'],
      ['virtual_card.updated', { 'metadata.x': 'y'.repeat(501) }, 'parameter_invalid', 'set.metadata.x'],
      ['balance_transaction.created', { currency: 'JPY', amount: '1.5' }, 'amount_invalid', 'set.amount'],
    ];
    for (const [type, set, code, param] of cases) {
      const res = await t.post(m, '/v1/simulate/events', { type, set });
      expect(res.status, `${type} ${res.text}`).toBe(400);
      expect(res.body.error, type).toMatchObject({ code, param });
    }
    expect(await objectCounts(m)).toEqual(before);
  });

  // Values the run's operations would only refuse once earlier steps had written something.
  it.each([
    // The recipe refunds 1.00: the payment must be above it (the payment was made, then refused).
    ['card_payment.partially_refunded', { amount: '0.01' }, 'set.amount'],
    ['card_payment.partially_refunded', { amount: '1.00' }, 'set.amount'],
    // Above what one authorization may be (the card was issued and the balance topped up first).
    ['issuing_authorization.approved', { amount: 5_000_000 }, 'set.amount'],
    ['issuing_authorization.captured', { amount: '5000000' }, 'set.amount'],
    ['issuing_authorization.declined', { amount: '5000000' }, 'set.amount'],
    // Converts to nothing in EUR (the balance was topped up first).
    ['fx_quote.used', { source_amount: '0.01' }, 'set.source_amount'],
    ['fx_conversion.completed', { source_amount: '0.01' }, 'set.source_amount'],
    ['fx_settlement.created', { source_amount: '0.01' }, 'set.source_amount'],
    ['fx_settlement.paid', { source_amount: '0.01' }, 'set.source_amount'],
    ['fx_settlement.failed', { source_amount: '0.01' }, 'set.source_amount'],
  ] as [string, Json, string][])(
    '%s with %j is refused before anything is written',
    async (type, set, param) => {
      const m = await t.merchant();
      const before = { counts: await objectCounts(m), balances: await balances(m) };
      const res = await t.post(m, '/v1/simulate/events', { type, set });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error, res.text).toMatchObject({ code: 'amount_invalid', param });
      expect({ counts: await objectCounts(m), balances: await balances(m) }).toEqual(before);
    },
  );

  it('card_payment.partially_refunded just above the refunded 1.00 goes through', async () => {
    const m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/events', {
      type: 'card_payment.partially_refunded',
      set: { amount: '1.01' },
    });
    expect(res.status, res.text).toBe(200);
    expect((res.body.event as { data: { object: Json } }).data.object).toMatchObject({ amount: 1.01 });
  });

  it('a key named like an object property is only a key: not accepted, never "set twice"', async () => {
    const m = await t.merchant();
    const before = await objectCounts(m);
    for (const key of ['constructor', 'toString', 'hasOwnProperty']) {
      const res = await t.post(m, '/v1/simulate/events', { type: 'collection.created', set: { [key]: 'x' } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error, key).toMatchObject({ code: 'override_not_applicable', param: `set.${key}` });
    }
    const listed = await t.gql<{ triggerEvent: Json }>(
      `mutation($set: [TriggerOverrideInput!]) { triggerEvent(type: "collection.created", set: $set) {
        ... on SandbankError { code param } } }`,
      { set: [{ key: 'constructor', value: 'x' }] },
      { key: m.secretKey },
    );
    expect(listed.data.triggerEvent).toMatchObject({
      code: 'override_not_applicable',
      param: 'set.constructor',
    });
    expect(await objectCounts(m)).toEqual(before);
  });

  it('takes no Idempotency-Key: each call is a new run', async () => {
    const m = await t.merchant();
    const res = await t.rest<Json>('POST', '/v1/simulate/events', {
      key: m.secretKey,
      body: { type: 'collection.created' },
      headers: { 'idempotency-key': 'once' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'idempotency_key_invalid' });
    expect((await t.get(m, '/v1/collections')).body.data).toEqual([]);
  });

  it('an unknown type is 400 parameter_invalid', async () => {
    const m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/events', { type: 'collection.exploded' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'type' });
  });

  it('webhook.test on a merchant without an endpoint is 400 naming set.endpoint', async () => {
    const m = await t.merchant();
    const res = await t.post(m, '/v1/simulate/events', { type: 'webhook.test' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'set.endpoint' });
  });

  it('a recipe that moves time advances the merchant clock, as documented', async () => {
    const m = await t.merchant();
    const before = Date.parse((await t.get(m, '/v1/clock')).body.now as string);
    const res = await t.post(m, '/v1/simulate/events', { type: 'card_payment.expired' });
    expect(res.status, res.text).toBe(200);
    const after = Date.parse((await t.get(m, '/v1/clock')).body.now as string);
    expect(after - before).toBeGreaterThanOrEqual(7 * 86_400_000);
  });
});

describe('concurrent runs', () => {
  it("each answers its own event and object, not another run's of the same type", async () => {
    const m = await t.merchant();
    const runs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.post(m, '/v1/simulate/events', { type: 'collection.created', set: { 'metadata.run': String(i) } }),
      ),
    );
    const ids = new Set<string>();
    runs.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      const event = res.body.event as { data: { object: { id: string; metadata: Json } } };
      expect(event.data.object.metadata, `run ${i}`).toEqual({ run: String(i) });
      expect(event.data.object.id).toBe(res.body.object_id);
      ids.add(res.body.object_id as string);
    });
    expect(ids.size).toBe(12);
    for (const [i, res] of runs.entries()) {
      const collection = await t.get(m, `/v1/collections/${res.body.object_id}`);
      expect(collection.body, collection.text).toMatchObject({ metadata: { run: String(i) } });
    }
  });

  it('of types whose object is a balance transaction, each answers its own', async () => {
    const m = await t.merchant();
    const types = [
      'balance_transaction.posted',
      'balance_transaction.voided',
      'balance_transaction.reversed',
    ];
    const runs = await Promise.all(
      [...types, ...types].map((type, i) =>
        t.post(m, '/v1/simulate/events', { type, set: { amount: `${i + 1}.00` } }),
      ),
    );
    for (const [i, res] of runs.entries()) {
      expect(res.status, res.text).toBe(200);
      const event = res.body.event as { type: string; data: { object: { id: string; available: number } } };
      expect(event.type).toBe([...types, ...types][i]);
      expect(event.data.object.id).toBe(res.body.object_id);
      expect(Math.abs(event.data.object.available), `run ${i}`).toBe(i + 1);
    }
  });
});

describe('webhooks', () => {
  it('an endpoint on a loopback receiver receives the triggered event', async () => {
    const receiver = await new Receiver().start();
    try {
      const m = await t.merchant();
      const endpoint = await t.post(m, '/v1/webhook_endpoints', {
        url: receiver.url,
        enabled_events: ['payout.paid'],
      });
      expect(endpoint.status, endpoint.text).toBe(200);
      const res = await t.post(m, '/v1/simulate/events', { type: 'payout.paid' });
      expect(res.status, res.text).toBe(200);
      const eventId = (res.body.event as Json).id as string;
      // Deliveries are sent by advancing the clock (which runs due work and the delivery pump).
      for (let i = 0; i < 20 && !receiver.received.some((r) => r.body.includes(eventId)); i++)
        await t.post(m, '/v1/clock/advance', { seconds: 1 });
      const delivered = receiver.received.find((r) => r.body.includes(eventId));
      expect(delivered, JSON.stringify(receiver.received.map((r) => r.body))).toBeDefined();
      expect(JSON.parse(delivered!.body)).toMatchObject({ id: eventId, type: 'payout.paid' });
    } finally {
      await receiver.stop();
    }
  });
});

describe('GraphQL triggerEvent', () => {
  const mutation = `mutation($type: String!, $set: [TriggerOverrideInput!]) { triggerEvent(type: $type, set: $set) {
    __typename
    ... on MutationTriggerEventSuccess { data { type objectId event { id type objectId data } events { id type } } }
    ... on SandbankError { code message param }
  } }`;

  it('triggers with overrides, answering the event, its object and the run', async () => {
    const m = await t.merchant();
    const res = await t.gql<{ triggerEvent: Json }>(
      mutation,
      {
        type: 'payout.failed',
        set: [
          { key: 'amount', value: '40.10' },
          { key: 'return_code', value: 'R02' },
        ],
      },
      { key: m.secretKey },
    );
    expect(res.errors).toBeUndefined();
    const payload = res.data.triggerEvent as {
      __typename: string;
      data: { objectId: string; event: Json; events: { type: string }[] };
    };
    expect(payload.__typename).toBe('MutationTriggerEventSuccess');
    expect(payload.data.event).toMatchObject({ type: 'payout.failed', objectId: payload.data.objectId });
    expect(payload.data.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['payout.created', 'payout.in_transit', 'payout.failed']),
    );
    const payout = await t.get(m, `/v1/payouts/${payload.data.objectId}`);
    expect(payout.body).toMatchObject({ amount: 40.1, state: 'failed', failure_code: 'R02' });
  });

  it('refuses an override the type does not take, and lists the recipes', async () => {
    const m = await t.merchant();
    const res = await t.gql<{ triggerEvent: Json }>(
      mutation,
      { type: 'virtual_card.created', set: [{ key: 'amount', value: '1' }] },
      { key: m.secretKey },
    );
    expect(res.data.triggerEvent).toMatchObject({ code: 'override_not_applicable', param: 'set.amount' });
    const twice = await t.gql<{ triggerEvent: Json }>(
      mutation,
      {
        type: 'virtual_card.created',
        set: [
          { key: 'brand', value: 'visa' },
          { key: 'brand', value: 'mastercard' },
        ],
      },
      { key: m.secretKey },
    );
    expect(twice.data.triggerEvent).toMatchObject({ code: 'parameter_invalid', param: 'set.brand' });
    const invalid = await t.gql<{ triggerEvent: Json }>(
      mutation,
      { type: 'virtual_card.created', set: [{ key: 'brand', value: 'discover' }] },
      { key: m.secretKey },
    );
    expect(invalid.data.triggerEvent).toMatchObject({ code: 'parameter_invalid', param: 'set.brand' });
    expect((await t.get(m, '/v1/virtual_cards')).body.data).toEqual([]);
    const recipes = await t.gql<{ triggerRecipes: { type: string; accepts: string[] }[] }>(
      '{ triggerRecipes { type accepts movesClock drives } }',
      {},
      { key: m.secretKey },
    );
    expect(recipes.data.triggerRecipes.map((r) => r.type)).toEqual(listEventTypes());
  });
});

describe('dashboard', () => {
  it('the webhooks page triggers the chosen type with its overrides and says which event it produced', async () => {
    const m = await t.merchant();
    const browser = await signedIn(() => t, m);
    const page = await browser.get('/dashboard/webhooks');
    expect(page.html).toContain('data-testid="trigger-form"');
    for (const type of listEventTypes()) expect(page.html).toContain(`<option value="${type}"`);

    const done = await browser.post('/dashboard/webhooks/trigger', {
      type: 'refund.succeeded',
      set: 'amount=33.30 metadata.order=A-9',
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/webhooks');
    const after = await browser.get('/dashboard/webhooks');
    const notice = /data-testid="flash-notice"[^>]*>([^<]*)</.exec(after.html)?.[1] ?? '';
    const [, eventId, refundId] = /Triggered refund\.succeeded (evt_\w+) on (re_\w+)/.exec(notice) ?? [];
    expect(eventId, after.html).toBeDefined();
    const event = await t.get(m, `/v1/events/${eventId}`);
    expect(event.body).toMatchObject({
      type: 'refund.succeeded',
      data: { object: { id: refundId, amount: 33.3 } },
    });
    // The form keeps the choice for the next trigger.
    expect(after.html).toContain('<option value="refund.succeeded" selected');
  });

  it('refuses an override the type does not take, and without the CSRF token; nothing is created', async () => {
    const m = await t.merchant();
    const browser = await signedIn(() => t, m);
    await browser.get('/dashboard/webhooks');
    const refused = await browser.post('/dashboard/webhooks/trigger', {
      type: 'collection.created',
      set: 'return_code=R01',
    });
    expect(refused.status).toBe(303);
    const after = await browser.get('/dashboard/webhooks');
    expect(after.html).toMatch(
      /data-testid="flash-error"[^>]*>[^<]*return_code cannot be set on collection\.created/,
    );
    const forged = await browser.post('/dashboard/webhooks/trigger', {
      _csrf: 'forged',
      type: 'collection.created',
    });
    expect(forged.status).toBe(403);
    expect((await t.get(m, '/v1/collections')).body.data).toEqual([]);
    expect((await t.get(m, '/v1/events')).body.data).toEqual([]);
  });
});
