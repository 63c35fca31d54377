#!/usr/bin/env node
/**
 * Two builds or settings of the server side by side, alternating A and B so that a noisy machine
 * hurts both alike. By default PGlite on the HTTP thread (PGLITE_WORKER=0) against PGlite in its
 * worker thread, on the built server (`npm run build` first). With BENCH_AB=name=dist,name=dist the
 * two are two builds instead (e.g. the previous commit's, built in a worktree, against this one's),
 * and with BENCH_DATABASE_URL (a Postgres server URL) each run gets a fresh database there instead
 * of `--memory`. BENCH_SKIP_STALL=1 measures the load only.
 *
 * 1. load: `wrk -t1 -c50 -d<D>s --latency` POSTing /v1/collect (bench/collect.lua) against
 *    `node dist/main.js --memory`: requests/s, p50, p99.
 * 2. stall: a merchant with N ACH payouts (2N due jobs: submission, then settlement) advances its
 *    clock over all of them in one request, while GET /healthz is polled back to back from this
 *    process: the slowest /healthz answer and the advance's own time.
 *
 *   node bench/worker-ab.mjs [rounds=3] [duration=10] [payouts=250]
 *
 * Needs wrk (apt-get install -y wrk). Prints each run, then the medians.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const rounds = Number(process.argv[2] ?? 3);
const duration = Number(process.argv[3] ?? 10);
const payouts = Number(process.argv[4] ?? 250);
const dist = process.env.BENCH_DIST ?? 'dist';
const KEY = 'sk_test_workerbench000000000000000000';
const postgresUrl = process.env.BENCH_DATABASE_URL;
const skipStall = process.env.BENCH_SKIP_STALL === '1';
const MODES = process.env.BENCH_AB
  ? process.env.BENCH_AB.split(',').map((pair) => {
      const [name, build] = pair.split('=');
      return { name, dist: build, env: {} };
    })
  : [
      { name: 'in-thread', env: { PGLITE_WORKER: '0' } },
      { name: 'worker', env: { PGLITE_WORKER: '1' } },
    ].filter((mode) => !process.env.BENCH_MODES || process.env.BENCH_MODES.split(',').includes(mode.name));

let databases = 0;
/** A fresh, empty database on the benchmark's Postgres server (the server migrates it on start). */
function freshDatabase() {
  const name = `sandbank_ab_${process.pid}_${++databases}`;
  const url = new URL(postgresUrl);
  spawnSync('psql', [postgresUrl, '-qc', `DROP DATABASE IF EXISTS ${name}`]);
  spawnSync('psql', [postgresUrl, '-qc', `CREATE DATABASE ${name}`]);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => spawnSync('psql', [postgresUrl, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]),
  };
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function startServer(mode) {
  const port = await freePort();
  const database = postgresUrl ? freshDatabase() : null;
  const storage = database ? [] : ['--memory'];
  const child = spawn(
    process.execPath,
    [join(mode.dist ?? dist, 'main.js'), ...storage, '--port', String(port)],
    {
      env: {
        ...process.env,
        ...mode.env,
        ...(database ? { DATABASE_URL: database.url } : {}),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SANDBANK_SECRET_KEY: KEY,
        RATE_LIMIT_PER_SECOND: '0',
        SCHEDULER_INTERVAL_MS: '0',
        MAINTENANCE_INTERVAL_MS: '0',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    base,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      database?.drop();
    },
  };
}

async function api(base, key, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

function runWrk(base) {
  const out = spawnSync(
    'wrk',
    ['-t1', '-c50', `-d${duration}s`, '--latency', '-s', join('bench', 'collect.lua'), `${base}/v1/collect`],
    { env: { ...process.env, SK: KEY }, encoding: 'utf8' },
  ).stdout;
  const ms = (text) => {
    const [, value, unit] = text.match(/([\d.]+)(us|ms|s)\b/) ?? [];
    return Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);
  };
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1]);
  const p50 = ms(out.match(/ 50%\s+(\S+)/)?.[1] ?? '');
  const p99 = ms(out.match(/ 99%\s+(\S+)/)?.[1] ?? '');
  const non2xx = Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  return { rps, p50, p99, non2xx };
}

async function stall(base) {
  const { secret_key: key } = await api(base, '', 'POST', '/v1/merchants', { name: 'Advance bench' });
  await api(base, key, 'POST', '/v1/clock/freeze');
  await api(base, key, 'POST', '/v1/clock/advance', { to: '2031-12-02T14:00:00Z' });
  await api(base, key, 'POST', '/v1/simulate/balance/top_up', { amount: '100000.00', currency: 'USD' });
  for (let i = 0; i < payouts; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, payouts - i) }, () =>
        api(base, key, 'POST', '/v1/payouts', {
          amount: '1.00',
          currency: 'USD',
          method: 'ach',
          destination: { name: 'Bench', routing_number: '021000021', account_number: '000123456789' },
        }),
      ),
    );
  }
  let done = false;
  let slowest = 0;
  let polls = 0;
  let failed = 0;
  const poller = (async () => {
    while (!done) {
      const started = performance.now();
      try {
        await (await fetch(`${base}/healthz`)).arrayBuffer();
      } catch {
        failed++; // a connection the server dropped while its event loop was blocked
      }
      slowest = Math.max(slowest, performance.now() - started);
      polls++;
    }
  })();
  const started = performance.now();
  await api(base, key, 'POST', '/v1/clock/advance', { to: '2031-12-05T14:00:00Z' });
  const advanceMs = performance.now() - started;
  done = true;
  await poller;
  return { advanceMs, slowestHealthzMs: slowest, polls, failed };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const results = Object.fromEntries(MODES.map((mode) => [mode.name, []]));
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 ? MODES : [...MODES].reverse();
  for (const mode of order) {
    let server = await startServer(mode);
    const load = runWrk(server.base);
    await server.stop();
    let advance = { advanceMs: 0, slowestHealthzMs: 0, polls: 0, failed: 0 };
    if (!skipStall) {
      server = await startServer(mode);
      advance = await stall(server.base);
      await server.stop();
    }
    const result = { ...load, ...advance };
    results[mode.name].push(result);
    console.log(
      `round ${round} ${mode.name.padEnd(9)} ${load.rps.toFixed(0)} req/s, p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms` +
        `${load.non2xx ? `, ${load.non2xx} non-2xx` : ''}; advance over ${2 * payouts} due jobs ${advance.advanceMs.toFixed(0)} ms, ` +
        `slowest /healthz meanwhile ${advance.slowestHealthzMs.toFixed(1)} ms (${advance.polls} polls` +
        `${advance.failed ? `, ${advance.failed} failed` : ''})`,
    );
  }
}
console.log(`\nmedians of ${rounds} rounds (wrk -t1 -c50 -d${duration}s; ${2 * payouts} due jobs):`);
for (const mode of MODES) {
  const runs = results[mode.name];
  console.log(
    `  ${mode.name.padEnd(9)} ${median(runs.map((r) => r.rps)).toFixed(0)} req/s, p50 ${median(runs.map((r) => r.p50)).toFixed(2)} ms, ` +
      `p99 ${median(runs.map((r) => r.p99)).toFixed(2)} ms; advance ${median(runs.map((r) => r.advanceMs)).toFixed(0)} ms, ` +
      `slowest /healthz ${median(runs.map((r) => r.slowestHealthzMs)).toFixed(1)} ms`,
  );
}
