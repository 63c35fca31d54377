/**
 * What the request log costs: `POST /v1/collect` throughput with the log on and with it off
 * (REQUEST_LOG=off), in the same run, on the same machine.
 *
 *   npm run bench:request-log                      # PGlite on a data folder (the default `npm start`)
 *   BENCH_STORE=memory npm run bench:request-log   # PGlite in memory (--memory)
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:request-log
 *                                                  # Postgres (a scratch database per run, dropped after)
 *   BENCH_ROUNDS=5 BENCH_DURATION=20 npm run bench:request-log
 *
 * Each round starts a fresh server (`node --import tsx src/main.ts`, a new data folder) for each
 * setting, the order alternating from one round to the next so that a machine getting busier or
 * quieter weighs on both alike; 2 s of warm-up, then BENCH_DURATION seconds (default 10) of
 * autocannon at 50 connections in this process. Every request is the bench merchant's: one merchant
 * at full speed, so the log's cap (1000 per merchant) trims it all along, its most expensive case.
 * The target: with the log on, at least 90 % of the throughput with it off. A shared machine's
 * other work moves throughput from one run to the next by more than that, so the check is the median
 * of each round's ratio (its two runs back to back), beside the server's CPU time per request
 * (/proc: every thread of it, PGlite's worker too), which other processes hardly move.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  envInteger,
  freePort,
  HOST,
  installExitGuards,
  loadAverage,
  machine,
  percentile,
  readDurationSeconds,
  SECRET_KEY,
  sandbankEnv,
  scratchDatabases,
  spawnChild,
  waitForReady,
  withChild,
} from './harness.ts';

const CONNECTIONS = 50;
const WARMUP_S = 2;
const MIN_RATIO = 0.9;
const BODY = JSON.stringify({ amount: 125.5, currency: 'USD', email: 'bench@example.com' });
const HEADERS = { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' };

type Setting = 'on' | 'off';

interface Run {
  setting: Setting;
  reqPerSec: number;
  /** The server's CPU time (user + system, every thread) per request, in ms. */
  cpuMs: number;
  p99: number;
  non2xx: number;
  logged: number;
}

function load(url: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: HEADERS,
    body: BODY,
  });
}

/** How many requests the log shows (its cap at most), read after the load. */
async function loggedCount(base: string): Promise<number> {
  const response = await fetch(`${base}/v1/requests?limit=100`, { headers: HEADERS });
  const page = (await response.json()) as { data?: unknown[] };
  return page.data?.length ?? 0;
}

const postgresUrl = process.env.BENCH_POSTGRES_URL;
const scratch = postgresUrl ? scratchDatabases(postgresUrl, 'sandbank_request_log_bench') : null;

async function measure(setting: Setting, seconds: number): Promise<Run> {
  const port = await freePort();
  const env = sandbankEnv(port, scratch ? await scratch.create() : undefined);
  env.REQUEST_LOG = setting;
  const memory = process.env.BENCH_STORE === 'memory';
  const dataDir = memory || scratch ? undefined : mkdtempSync(join(tmpdir(), 'sandbank-request-log-'));
  if (dataDir) env.SANDBANK_DATA_DIR = dataDir;
  const args = ['--import', 'tsx', 'src/main.ts', ...(memory && !scratch ? ['--memory'] : [])];
  try {
    return await withChild(
      () => spawnChild(`sandbank (log ${setting})`, args, env),
      async (child) => {
        const base = `http://${HOST}:${port}`;
        await waitForReady(child, `${base}/readyz`);
        await load(`${base}/v1/collect`, WARMUP_S);
        const pid = child.process.pid as number;
        const cpuBefore = cpuTimeMs(pid);
        const result = await load(`${base}/v1/collect`, seconds);
        const cpu = cpuTimeMs(pid) - cpuBefore;
        const run: Run = {
          setting,
          reqPerSec: result.requests.average,
          cpuMs: cpu / Math.max(1, result['2xx']),
          p99: result.latency.p99,
          non2xx: result.non2xx + result.errors,
          logged: await loggedCount(base),
        };
        console.log(
          `  log ${setting.padEnd(3)}  ${run.reqPerSec.toFixed(0).padStart(6)} req/s  p99 ${run.p99} ms  ` +
            `CPU ${run.cpuMs.toFixed(3)} ms/request  ` +
            `non-2xx/errors ${run.non2xx}  entries on the first page of the log: ${run.logged}`,
        );
        return run;
      },
    );
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);

/** A process's CPU time so far (user + system, all its threads), ms. */
function cpuTimeMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function main(): Promise<number> {
  installExitGuards();
  const seconds = readDurationSeconds();
  const rounds = envInteger('BENCH_ROUNDS', 3, 1, 50);
  const store = scratch
    ? 'Postgres'
    : process.env.BENCH_STORE === 'memory'
      ? 'PGlite in memory'
      : 'PGlite on a data folder';
  console.log(`Machine: ${machine()}; load average ${loadAverage()} (1 / 5 / 15 min)`);
  console.log(
    `POST /v1/collect, ${CONNECTIONS} connections, ${seconds} s per run after ${WARMUP_S} s of warm-up, ${rounds} rounds, ${store}`,
  );
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      console.log(`\nRound ${round}`);
      const order: Setting[] = round % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
      for (const setting of order) runs.push(await measure(setting, seconds));
    }
  } finally {
    await scratch?.dropAll();
  }
  const of = (setting: Setting) => runs.filter((run) => run.setting === setting);
  const on = median(of('on').map((run) => run.reqPerSec));
  const off = median(of('off').map((run) => run.reqPerSec));
  // Each round's two runs, back to back: on / off.
  const ratios = of('on').map((run, i) => run.reqPerSec / (of('off')[i]?.reqPerSec ?? Number.NaN));
  const ratio = median(ratios);
  const cpuOn = median(of('on').map((run) => run.cpuMs));
  const cpuOff = median(of('off').map((run) => run.cpuMs));
  console.log(
    `\nMedians: log off ${off.toFixed(0)} req/s, log on ${on.toFixed(0)} req/s (${((on / off) * 100).toFixed(1)}%)`,
  );
  console.log(`Each round's on / off: ${ratios.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}`);
  console.log(
    `Server CPU per request (medians): off ${cpuOff.toFixed(3)} ms, on ${cpuOn.toFixed(3)} ms: ` +
      `${((cpuOff / cpuOn) * 100).toFixed(1)}% of the throughput a CPU-bound server keeps with the log on`,
  );
  console.log(
    `p99 medians: off ${median(of('off').map((run) => run.p99))} ms, on ${median(of('on').map((run) => run.p99))} ms`,
  );
  console.log(`Load average after: ${loadAverage()}`);
  const failures: string[] = [];
  if (of('on').some((run) => run.logged === 0)) failures.push('a run with the log on logged nothing');
  if (of('off').some((run) => run.logged !== 0)) failures.push('a run with the log off logged something');
  if (runs.some((run) => run.non2xx > 0)) failures.push('some requests failed (non-2xx or errors)');
  const held = ratio >= MIN_RATIO;
  console.log(
    `Target: with the log on, ≥ ${MIN_RATIO * 100}% of the throughput with it off (median of the rounds' ratios) — ${held ? 'held' : 'MISSED'} (${(ratio * 100).toFixed(1)}%)`,
  );
  if (!held) failures.push(`the log costs ${((1 - ratio) * 100).toFixed(1)}% of the throughput`);
  for (const failure of failures) console.error(`FAILED: ${failure}`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('\nBenchmark aborted:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
