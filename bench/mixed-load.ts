/**
 * The mixed workload's load generator, run as its own process by record.bench.ts (never inside the
 * server it measures):
 *
 *   node --import tsx bench/mixed-load.ts <base url> <connections> <warm-up s> <seconds>
 *
 * It signs up 20 merchants, tops each up and gives each a virtual card, then keeps <connections>
 * clients busy, each bound to one merchant, each running flows one request at a time:
 *
 *   card payment captured at once                        POST /v1/card_payments
 *   authorize → capture → refund part                    POST /v1/card_payments {capture: false}, …/capture, …/refunds
 *   Same-Day ACH credit transfer                         POST /v1/transfers
 *   ACH payout                                           POST /v1/payouts
 *   virtual card authorization                           POST /v1/simulate/virtual_cards/{id}/authorizations
 *
 * After the warm-up it records every request's latency and status for <seconds> and prints one JSON
 * line: requests, requests per second, p50/p99/max in ms, non-2xx and errors, and counts per step.
 */
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile, type JsonReply as Reply, requestJson } from './harness.ts';

const MERCHANTS = 20;
const TOP_UP = '10000000.00';
const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const COUNTERPARTY = {
  name: 'Bench Supplies',
  routing_number: '021000021',
  account_number: '000123456789',
  account_type: 'checking',
};

const [baseArg, connectionsArg, warmupArg, secondsArg] = process.argv.slice(2);
if (!baseArg || !connectionsArg || !warmupArg || !secondsArg) {
  console.error('usage: mixed-load.ts <base url> <connections> <warm-up s> <seconds>');
  process.exit(2);
}
const base = new URL(baseArg);
const connections = Number(connectionsArg);
const agent = new Agent({ keepAlive: true, maxSockets: connections });

function call(method: string, path: string, key: string | null, body?: unknown): Promise<Reply> {
  return requestJson(agent, base.port, method, path, key, body);
}

async function must(method: string, path: string, key: string | null, body?: unknown): Promise<Reply> {
  const reply = await call(method, path, key, body);
  if (reply.status < 200 || reply.status >= 300) {
    throw new Error(`setup: ${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return reply;
}

interface Merchant {
  key: string;
  card: string;
}

async function setUp(): Promise<Merchant[]> {
  const merchants: Merchant[] = [];
  for (let i = 0; i < MERCHANTS; i++) {
    const signUp = await must('POST', '/v1/merchants', null, { name: `Mixed ${i + 1}` });
    const key = String(signUp.body.secret_key);
    await must('POST', '/v1/simulate/balance/top_up', key, { amount: TOP_UP, currency: 'USD' });
    const card = await must('POST', '/v1/virtual_cards', key, { brand: 'visa', cardholder_name: 'Bench' });
    merchants.push({ key, card: String(card.body.id) });
  }
  return merchants;
}

interface Tally {
  recording: boolean;
  latencies: number[];
  non2xx: Record<string, number>;
  errors: number;
  steps: Record<string, number>;
}

const tally: Tally = { recording: false, latencies: [], non2xx: {}, errors: 0, steps: {} };

/** One timed request; a failure is counted and the flow stops (null). */
async function step(
  name: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<Reply | null> {
  const started = performance.now();
  let reply: Reply;
  try {
    reply = await call(method, path, key, body);
  } catch {
    if (tally.recording) tally.errors++;
    return null;
  }
  if (tally.recording) {
    tally.latencies.push(performance.now() - started);
    tally.steps[name] = (tally.steps[name] ?? 0) + 1;
    if (reply.status < 200 || reply.status >= 300) {
      const label = `${name} ${reply.status} ${String((reply.body.error as { code?: string })?.code ?? '')}`;
      tally.non2xx[label] = (tally.non2xx[label] ?? 0) + 1;
    }
  }
  return reply.status >= 200 && reply.status < 300 ? reply : null;
}

const FLOWS: ((m: Merchant) => Promise<unknown>)[] = [
  (m) =>
    step('card_payment', 'POST', '/v1/card_payments', m.key, { amount: 12.5, currency: 'USD', card: CARD }),
  async (m) => {
    const auth = await step('authorize', 'POST', '/v1/card_payments', m.key, {
      amount: 40,
      currency: 'USD',
      card: CARD,
      capture: false,
    });
    if (!auth) return;
    const id = String(auth.body.id);
    if (!(await step('capture', 'POST', `/v1/card_payments/${id}/capture`, m.key, {}))) return;
    await step('refund', 'POST', `/v1/card_payments/${id}/refunds`, m.key, { amount: 10 });
  },
  (m) =>
    step('transfer', 'POST', '/v1/transfers', m.key, {
      rail: 'same_day_ach',
      direction: 'credit',
      amount: '2.00',
      currency: 'USD',
      counterparty: COUNTERPARTY,
    }),
  (m) =>
    step('payout', 'POST', '/v1/payouts', m.key, {
      amount: '3.00',
      currency: 'USD',
      method: 'ach',
      destination: { name: 'Bench operating', routing_number: '021000021', account_number: '000123456789' },
    }),
  (m) =>
    step('card_authorization', 'POST', `/v1/simulate/virtual_cards/${m.card}/authorizations`, m.key, {
      amount: 1.25,
      merchant: { name: 'Blue Bottle', mcc: '5814' },
    }),
];

async function client(merchant: Merchant, offset: number, until: () => boolean): Promise<void> {
  for (let i = offset; !until(); i++) {
    await (FLOWS[i % FLOWS.length] as (m: Merchant) => Promise<unknown>)(merchant);
  }
}

async function main(): Promise<void> {
  const merchants = await setUp();
  const warmupMs = Number(warmupArg) * 1000;
  const measureMs = Number(secondsArg) * 1000;
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const end = measureFrom + measureMs;
  setTimeout(() => {
    tally.recording = true;
  }, warmupMs);
  const stopped = () => performance.now() >= end;
  await Promise.all(
    Array.from({ length: connections }, (_, i) => client(merchants[i % MERCHANTS] as Merchant, i, stopped)),
  );
  const elapsed = (performance.now() - measureFrom) / 1000;
  const sorted = tally.latencies.sort((a, b) => a - b);
  const non2xx = Object.values(tally.non2xx).reduce((a, b) => a + b, 0);
  console.log(
    JSON.stringify({
      requests: sorted.length,
      seconds: elapsed,
      rps: sorted.length / elapsed,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
      non2xx,
      non2xxBy: tally.non2xx,
      errors: tally.errors,
      steps: tally.steps,
    }),
  );
  agent.destroy();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
