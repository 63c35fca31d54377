/**
 * A test suite's requests, one at a time and then paced, run as its own process by
 * record.bench.ts (never inside the server it measures):
 *
 *   node --import tsx bench/operations-load.ts <base url> <seconds per operation> <rate/s> <paced seconds>
 *
 * 1. **One at a time**: each operation of a realistic mix, alone, back to back on one connection for
 *    <seconds per operation>: create a collection, pay one (a test card), a card payment captured at
 *    once, read one collection by reference, a list, the balances, the events. Medians and p99s.
 * 2. **Paced**: the mix (35 % creates, 10 % pays, 10 % card payments, 25 % reads of one collection,
 *    20 % lists, balances and events) sent open-loop at <rate> requests per second for
 *    <paced seconds> — each request at its scheduled instant whether or not the ones before have
 *    answered, so that queueing shows — each latency measured from the scheduled instant. The rate
 *    achieved is the answers that came within the window over the window.
 *
 * Prints one JSON line. The key is the bench's pinned secret key (SECRET_KEY).
 */
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile, requestJson, SECRET_KEY } from './harness.ts';

const [baseArg, secondsArg, rateArg, pacedArg] = process.argv.slice(2);
if (!baseArg || !secondsArg || !rateArg || !pacedArg) {
  console.error('usage: operations-load.ts <base url> <seconds per operation> <rate/s> <paced seconds>');
  process.exit(2);
}
const base = new URL(baseArg);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

let sequence = 0;
const unique = () => `ops-${process.pid}-${++sequence}`;

async function call(method: string, path: string, body?: unknown): Promise<number> {
  const reply = await requestJson(agent, base.port, method, path, SECRET_KEY, body);
  return reply.status;
}

/** References of pending collections to pay, and of one to read. */
const payable: string[] = [];
let readable = '';

const OPERATIONS: Record<string, () => Promise<number>> = {
  'create a collection': async () => {
    const reference = unique();
    const status = await call('POST', '/v1/collect', { amount: 25.5, currency: 'USD', reference });
    if (status === 200) payable.push(reference);
    return status;
  },
  'pay a collection': async () => {
    const reference = payable.pop();
    if (!reference) return OPERATIONS['create a collection']?.() ?? 500;
    return call('POST', `/v1/simulate/collections/${reference}/pay`, { method: 'card', card: CARD });
  },
  'a card payment': () => call('POST', '/v1/card_payments', { amount: 12, currency: 'USD', card: CARD }),
  'read a collection': () => call('GET', `/v1/collections/${readable}`),
  'a list': () => call('GET', '/v1/collections?limit=10'),
  balances: () => call('GET', '/v1/balances'),
  events: () => call('GET', '/v1/events?limit=10'),
};

const MIX: Array<[string, number]> = [
  ['create a collection', 35],
  ['pay a collection', 10],
  ['a card payment', 10],
  ['read a collection', 25],
  ['a list', 7],
  ['balances', 7],
  ['events', 6],
];

async function oneAtATime(seconds: number): Promise<Record<string, { p50: number; p99: number; n: number }>> {
  const out: Record<string, { p50: number; p99: number; n: number }> = {};
  for (const [name, run] of Object.entries(OPERATIONS)) {
    // Enough pending collections for the pays (made before the clock starts).
    if (name === 'pay a collection') while (payable.length < 400) await OPERATIONS['create a collection']?.();
    const times: number[] = [];
    for (let i = 0; i < 20; i++) await run(); // warm-up
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const started = performance.now();
      const status = await run();
      if (status >= 400 && status !== 402) throw new Error(`${name} answered ${status}`);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    out[name] = { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
  }
  return out;
}

async function paced(rate: number, seconds: number) {
  while (payable.length < rate * seconds) await OPERATIONS['create a collection']?.();
  const total = MIX.reduce((sum, [, weight]) => sum + weight, 0);
  const pick = (): string => {
    let r = Math.random() * total;
    for (const [name, weight] of MIX) {
      r -= weight;
      if (r < 0) return name;
    }
    return MIX[0]?.[0] ?? 'a list';
  };
  const latencies: number[] = [];
  let bad = 0;
  let answered = 0;
  const start = performance.now() + 50;
  const windowEnd = start + seconds * 1000;
  const count = Math.floor(rate * seconds);
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const name = pick();
    pending.push(
      (OPERATIONS[name] as () => Promise<number>)().then(
        (status) => {
          const done = performance.now();
          latencies.push(done - due);
          if (status >= 400 && status !== 402) bad++;
          if (done <= windowEnd) answered++;
        },
        () => {
          bad++;
        },
      ),
    );
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return {
    rate,
    achieved: answered / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    bad,
    sent: count,
  };
}

async function main() {
  const seed = unique();
  if ((await call('POST', '/v1/collect', { amount: 40, currency: 'USD', reference: seed })) !== 200)
    throw new Error('could not create the collection to read');
  readable = seed;
  const operations = await oneAtATime(Number(secondsArg));
  const mix = await paced(Number(rateArg), Number(pacedArg));
  process.stdout.write(`${JSON.stringify({ operations, paced: mix })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
