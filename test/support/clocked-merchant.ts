/**
 * Helpers of the clock-driven money tests (transfers, payouts, a checkout's bank payment): a
 * merchant frozen at a chosen instant with funds, the clock moved to an instant, balances and the
 * event types of an object. `app` is read on each call (suites create their app in beforeAll).
 */
import { expect } from 'vitest';
import type { TestApp, TestMerchant } from './harness.ts';

export type Json = Record<string, unknown>;

export function clockedMerchants(app: () => TestApp) {
  const post = (m: TestMerchant, path: string, body?: unknown) =>
    app().rest<Json>('POST', path, { key: m.secretKey, ...(body === undefined ? {} : { body }) });
  const get = (m: TestMerchant, path: string) => app().rest<Json>('GET', path, { key: m.secretKey });

  /** The merchant's USD balances as numbers (amounts in the tests are exact in binary here). */
  async function usd(m: TestMerchant) {
    const res = await app().rest<{ data: Json[] }>('GET', '/v1/balances', { key: m.secretKey });
    const row = res.body.data.find((b) => b.currency === 'USD') ?? {};
    return {
      available: Number(row.available ?? 0),
      pending: Number(row.pending ?? 0),
      reserved: Number(row.reserved ?? 0),
    };
  }

  /** A new merchant whose clock is frozen at `at`, with `funds` USD available ('0': none). */
  async function merchantAt(at: string, funds = '1000.00'): Promise<TestMerchant> {
    const m = await app().merchant();
    expect((await post(m, '/v1/clock/freeze')).status).toBe(200);
    expect((await post(m, '/v1/clock/advance', { to: at })).status).toBe(200);
    if (funds !== '0') {
      const topUp = await post(m, '/v1/simulate/balance/top_up', { amount: funds, currency: 'USD' });
      expect(topUp.status).toBe(200);
    }
    return m;
  }

  /** Moves the clock to `to`; returns the due work that ran, as `kind@due_at`. */
  async function advanceTo(m: TestMerchant, to: string): Promise<string[]> {
    const res = await post(m, '/v1/clock/advance', { to });
    expect(res.status).toBe(200);
    return (res.body.ran as Json[]).map((job) => `${job.kind}@${job.due_at}`);
  }

  /** The types of the events of one object, oldest first. */
  async function eventTypes(m: TestMerchant, objectId: string): Promise<string[]> {
    const res = await app().rest<{ data: Json[] }>('GET', `/v1/events?object_id=${objectId}&limit=100`, {
      key: m.secretKey,
    });
    return res.body.data.map((e) => String(e.type)).reverse();
  }

  return { post, get, usd, merchantAt, advanceTo, eventTypes };
}

/** Which steps each state allows, and the steps that bring a new entry to each state. */
export interface StateStepTable {
  steps: readonly string[];
  allowed: Record<string, readonly string[]>;
  reach: Record<string, readonly string[]>;
}

/**
 * Every (state × step) pair of a rail entry: a fresh entry is brought to the state by the API's own
 * steps, then the step is taken — 200 where the table allows it, else 409 invalid_state naming the
 * state found. `check` runs after each pair (e.g. the balance the entry's state implies).
 */
export function stateStepCases(
  app: () => TestApp,
  table: StateStepTable,
  entry: {
    create: () => Promise<{ m: TestMerchant; id: string }>;
    path: (id: string, step: string) => string;
    stateOf: (m: TestMerchant, id: string) => Promise<string>;
    check?: (m: TestMerchant, id: string) => Promise<void>;
  },
): { name: string; run: () => Promise<void> }[] {
  const post = (m: TestMerchant, path: string) => app().rest<Json>('POST', path, { key: m.secretKey });
  return Object.entries(table.reach).flatMap(([state, way]) =>
    table.steps.map((step) => {
      const ok = table.allowed[state]?.includes(step) ?? false;
      return {
        name: `${state} × ${step} → ${ok ? '200' : '409'}`,
        run: async () => {
          const { m, id } = await entry.create();
          for (const move of way) expect((await post(m, entry.path(id, move))).status).toBe(200);
          expect(await entry.stateOf(m, id)).toBe(state);
          const res = await post(m, entry.path(id, step));
          if (ok) {
            expect(res.status).toBe(200);
          } else {
            expect(res.status).toBe(409);
            expect(res.body).toMatchObject({ error: { code: 'invalid_state' } });
            expect(JSON.stringify(res.body)).toContain(`is ${state}`);
          }
          await entry.check?.(m, id);
        },
      };
    }),
  );
}

/**
 * A GraphQL step mutation on one entry (`mutation { simulatePayoutSubmit(id: …) { … } }`) and its
 * result: the Success type's `data { fields }`, or a SandbankError's code and message.
 */
export async function gqlStep(
  app: () => TestApp,
  m: TestMerchant,
  id: string,
  mutation: string,
  fields: string,
  extraArgs = '',
): Promise<Json> {
  const success = `Mutation${mutation[0]?.toUpperCase()}${mutation.slice(1)}Success`;
  const res = await app().gql<Record<string, Json>>(
    `mutation { ${mutation}(id: "${id}"${extraArgs}) {
      __typename ... on ${success} { data { ${fields} } } ... on SandbankError { code message }
    } }`,
    {},
    { key: m.secretKey },
  );
  expect(res.errors).toBeUndefined();
  return res.data[mutation] as Json;
}
