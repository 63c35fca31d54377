/**
 * Load benchmark for `POST /v1/collect`, measured against the machine's ceiling.
 *
 *   npm run bench                                   # ceiling + Sandbank on PGlite (a temp data folder, and --memory)
 *   DATABASE_URL=postgres://… npm run bench         # … + Sandbank on Postgres
 *   BENCH_DURATION=30 npm run bench                 # seconds per measured run (default 10)
 *
 * Every server runs in a child process on 127.0.0.1; autocannon runs in this process, so the load
 * generator shares the machine with the server (as it does on the 2-core reference box).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  CEILING_SERVER_CODE,
  freePort,
  getStatus,
  HOST,
  installExitGuards,
  readDurationSeconds,
  SECRET_KEY,
  sandbankEnv,
  spawnChild,
  waitForReady,
  withChild,
} from './harness.ts';

const CONNECTIONS = 50;
const WARMUP_S = 2;
const MAX_NON2XX_RATIO = 0.001;
const COLLECT_BODY = JSON.stringify({ amount: 125.5, currency: 'USD', email: 'bench@example.com' });
/** A captured card payment: authorization, capture, pending credit and its release job, three events. */
const CARD_PAYMENT_BODY = JSON.stringify({
  amount: 125.5,
  currency: 'USD',
  card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
});
/** Card payments must run at least this share of the collection create rate on the same database. */
const CARD_PAYMENT_MIN_SHARE = 0.8;
const REQUEST_HEADERS = { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' };

interface Measurement {
  target: string;
  result: autocannon.Result;
}

interface Goal {
  target: string;
  minReqPerSec: number;
  maxP99Ms: number;
}

interface SandbankTarget {
  name: string;
  args: string[];
  databaseUrl: string | undefined;
  /** PGlite's data folder (a fresh temporary one, removed afterwards), as `npm start` persists. */
  dataDir?: string;
}

const GOALS: Goal[] = [
  { target: 'sandbank-pglite', minReqPerSec: 1200, maxP99Ms: 50 },
  { target: 'sandbank-postgres', minReqPerSec: 2500, maxP99Ms: 50 },
];

// ---------------------------------------------------------------------------------------------
// Load.

function runLoad(url: string, durationSeconds: number, body = COLLECT_BODY): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: durationSeconds,
    method: 'POST',
    headers: REQUEST_HEADERS,
    body,
  });
}

/** Warm-up (not measured), then the measured run. */
async function measure(
  target: string,
  url: string,
  durationSeconds: number,
  body = COLLECT_BODY,
): Promise<Measurement> {
  console.log(`  warming up ${WARMUP_S} s…`);
  await runLoad(url, WARMUP_S, body);
  console.log(`  measuring ${durationSeconds} s, ${CONNECTIONS} connections → POST ${url}`);
  const result = await runLoad(url, durationSeconds, body);
  printRunSummary(result);
  return { target, result };
}

function responseCount(result: autocannon.Result): number {
  return result['2xx'] + result.non2xx;
}

function printRunSummary(result: autocannon.Result): void {
  console.log(
    `  ${responseCount(result)} responses: ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ` +
      `${result.errors} errors (${result.timeouts} timeouts)`,
  );
  if (result.non2xx > 0 && result.statusCodeStats) {
    const byStatus = Object.entries(result.statusCodeStats)
      .map(([status, stats]) => `${status}×${stats.count ?? 0}`)
      .join(', ');
    console.log(`  status codes: ${byStatus}`);
  }
}

/**
 * Reasons this run must fail the exit code: nothing answered, or more than 0.1% of the attempts
 * were non-2xx responses or errors (connection errors and timeouts).
 */
function loadFailures(measurement: Measurement): string[] {
  const { target, result } = measurement;
  const responses = responseCount(result);
  if (responses === 0) return [`${target}: no responses at all (${result.errors} errors).`];
  const attempts = responses + result.errors;
  const ratio = (result.non2xx + result.errors) / attempts;
  if (ratio <= MAX_NON2XX_RATIO) return [];
  return [
    `${target}: ${result.non2xx} non-2xx responses and ${result.errors} errors in ${attempts} requests ` +
      `(${(ratio * 100).toFixed(3)}% > ${MAX_NON2XX_RATIO * 100}%).`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Targets.

async function benchCeiling(durationSeconds: number): Promise<Measurement> {
  console.log('\n[ceiling] bare node:http server');
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST };
  return withChild(
    () => spawnChild('ceiling', ['-e', CEILING_SERVER_CODE], env),
    async (child) => {
      const base = `http://${HOST}:${port}`;
      await waitForReady(child, `${base}/`);
      return measure('ceiling', `${base}/v1/collect`, durationSeconds);
    },
  );
}

/** Cheap durability check after the load: the list endpoint still answers with the key. */
async function verifyDurability(target: string, base: string): Promise<string[]> {
  const url = `${base}/v1/collections?limit=1`;
  const status = await getStatus(url, { authorization: `Bearer ${SECRET_KEY}` });
  if (status === 200) {
    console.log(`  GET /v1/collections?limit=1 → 200`);
    return [];
  }
  return [
    `${target}: GET /v1/collections?limit=1 answered ${status ?? 'nothing'} after the load (expected 200).`,
  ];
}

async function benchSandbank(
  target: SandbankTarget,
  durationSeconds: number,
): Promise<{ measurements: Measurement[]; failures: string[] }> {
  console.log(`\n[${target.name}] node --import tsx src/main.ts ${target.args.join(' ')}`.trimEnd());
  const port = await freePort();
  const env = sandbankEnv(port, target.databaseUrl);
  if (target.dataDir) env.SANDBANK_DATA_DIR = target.dataDir;
  const args = ['--import', 'tsx', 'src/main.ts', ...target.args];
  return withChild(
    () => spawnChild(target.name, args, env),
    async (child) => {
      const base = `http://${HOST}:${port}`;
      await waitForReady(child, `${base}/readyz`);
      const measurement = await measure(target.name, `${base}/v1/collect`, durationSeconds);
      const failures = [...loadFailures(measurement), ...(await verifyDurability(target.name, base))];
      // The same server and database: captured card payments (their target is a share of the above).
      const cards = await measure(
        `${target.name} card_payments`,
        `${base}/v1/card_payments`,
        durationSeconds,
        CARD_PAYMENT_BODY,
      );
      failures.push(...loadFailures(cards));
      return { measurements: [measurement, cards], failures };
    },
  );
}

function sandbankTargets(): SandbankTarget[] {
  // The default `npm start`: PGlite persisted to a folder (every request a durable insert), and the
  // throwaway `--memory` mode for comparison.
  const targets: SandbankTarget[] = [
    {
      name: 'sandbank-pglite',
      args: [],
      databaseUrl: undefined,
      dataDir: mkdtempSync(join(tmpdir(), 'sandbank-bench-')),
    },
    { name: 'sandbank-pglite-memory', args: ['--memory'], databaseUrl: undefined },
  ];
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) targets.push({ name: 'sandbank-postgres', args: [], databaseUrl });
  else console.log('DATABASE_URL is not set: skipping Sandbank on Postgres.');
  return targets;
}

// ---------------------------------------------------------------------------------------------
// Report.

/** autocannon's latency percentiles have 1 ms resolution. */
function formatMs(ms: number): string {
  return ms < 1 ? '<1' : ms.toFixed(0);
}

function formatRow(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
    .join('  ');
}

function printTable(measurements: Measurement[], ceilingReqPerSec: number): void {
  const header = ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '% of ceiling'];
  const rows = measurements.map(({ target, result }) => [
    target,
    result.requests.average.toFixed(0),
    formatMs(result.latency.p50),
    formatMs(result.latency.p99),
    String(result.non2xx),
    String(result.errors),
    ceilingReqPerSec > 0 ? `${((result.requests.average / ceilingReqPerSec) * 100).toFixed(1)}%` : 'n/a',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
  console.log('');
  console.log(formatRow(header, widths));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(formatRow(row, widths));
}

function printGoals(measurements: Measurement[]): void {
  console.log('\nTargets:');
  for (const cards of measurements.filter((m) => m.target.endsWith(' card_payments'))) {
    const collect = measurements.find((m) => `${m.target} card_payments` === cards.target);
    if (!collect) continue;
    const share = cards.result.requests.average / collect.result.requests.average;
    console.log(
      `  ${cards.target}: ≥ ${CARD_PAYMENT_MIN_SHARE * 100}% of the collection rate — ` +
        `${share >= CARD_PAYMENT_MIN_SHARE ? 'held' : 'MISSED'} (${(share * 100).toFixed(0)}%: ` +
        `${cards.result.requests.average.toFixed(0)}/s against ${collect.result.requests.average.toFixed(0)}/s)`,
    );
  }
  for (const goal of GOALS) {
    const label = `${goal.target}: ≥ ${goal.minReqPerSec} collections/s with p99 ≤ ${goal.maxP99Ms} ms`;
    const measured = measurements.find((m) => m.target === goal.target);
    if (!measured) {
      console.log(`  ${label} — not run`);
      continue;
    }
    const { average } = measured.result.requests;
    const { p99 } = measured.result.latency;
    const held = average >= goal.minReqPerSec && p99 <= goal.maxP99Ms;
    console.log(
      `  ${label} — ${held ? 'held' : 'MISSED'} (${average.toFixed(0)}/s, p99 ${formatMs(p99)} ms)`,
    );
  }
}

function printMachine(durationSeconds: number): void {
  const cpus = os.cpus();
  console.log(
    `Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
  );
  console.log(`Date: ${new Date().toISOString()}`);
  console.log(
    `Load: autocannon in-process, ${CONNECTIONS} connections, ${durationSeconds} s per run ` +
      `after ${WARMUP_S} s warm-up, all on ${HOST}`,
  );
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  installExitGuards();
  const durationSeconds = readDurationSeconds();
  printMachine(durationSeconds);
  const targets = sandbankTargets();

  const ceiling = await benchCeiling(durationSeconds);
  const measurements: Measurement[] = [ceiling];
  const failures: string[] = [...loadFailures(ceiling)];
  try {
    for (const target of targets) {
      const run = await benchSandbank(target, durationSeconds);
      measurements.push(...run.measurements);
      failures.push(...run.failures);
    }
  } finally {
    for (const target of targets)
      if (target.dataDir) rmSync(target.dataDir, { recursive: true, force: true });
  }

  printTable(measurements, ceiling.result.requests.average);
  printGoals(measurements);
  console.log('');
  printMachine(durationSeconds);

  if (failures.length === 0) return 0;
  console.error('\nBenchmark FAILED:');
  for (const failure of failures) console.error(`  ${failure}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('\nBenchmark aborted:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
