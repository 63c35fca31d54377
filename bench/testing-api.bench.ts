/**
 * Sandbank inside a user's test suite (`npm run bench:testing`; `npm run bench` runs it after the
 * benchmark of record): what a suite pays for a server, a merchant per file, a clean slate per
 * test, and a whole realistic suite. Beside the peer where the peer can do the same (start-up).
 *
 *   - start-up: a process of its own imports the built `sandbank/testing`, calls startSandbank()
 *     (PGlite in memory), creates a collection and closes (bench/testing-api-child.mjs start);
 *     stripe-stateful-mock's spawn → first 2xx create beside it; BENCH_STARTS runs each, median;
 *   - a merchant per file: newMerchant() (a sign-up), then the same with a webhook receiver,
 *     BENCH_MERCHANTS times one after another on one server;
 *   - snapshot restore: a merchant seeded with BENCH_SNAPSHOT_OBJECTS collections saved as a
 *     snapshot, then restored BENCH_RESTORES times, a few new objects made before each; on PGlite
 *     and, with BENCH_POSTGRES_URL, Postgres;
 *   - (BENCH_TESTING_PARTS=start,merchants,restore,suite picks the parts; a part left out is not
 *     recorded)
 *   - the user suite: bench/user-suite/suite.template.ts copied into BENCH_SUITE_FILES files of 20
 *     tests each, run by vitest against one server (the shared-server pattern); each file adds up
 *     the time its calls into Sandbank took; the total, with the global setup's, is the suite's
 *     time in Sandbank.
 *
 * The run rewrites the "testing API run" section of docs/internals/benchmarks.md (BENCH_WRITE=0
 * leaves it alone).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  commit,
  ensureBuild,
  envInteger,
  freePort,
  HOST,
  installExitGuards,
  loadAverage,
  machine,
  runBench,
  scratchDatabases,
  sleep,
  spawnChild,
  stopChild,
  writeBenchmarksSection,
} from './harness.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = join(REPO_ROOT, 'bench/testing-api-child.mjs');
const SUITE = join(REPO_ROOT, 'bench/user-suite');
const execFileAsync = promisify(execFile);

const STARTS = envInteger('BENCH_STARTS', 5, 1, 50);
const MERCHANTS = envInteger('BENCH_MERCHANTS', 50, 5, 1000);
const SNAPSHOT_OBJECTS = envInteger('BENCH_SNAPSHOT_OBJECTS', 1000, 10, 100_000);
const RESTORES = envInteger('BENCH_RESTORES', 10, 1, 1000);
const SUITE_FILES = envInteger('BENCH_SUITE_FILES', 50, 1, 500);
/** Which parts run (BENCH_TESTING_PARTS, comma-separated; default all of them). */
const PARTS = new Set((process.env.BENCH_TESTING_PARTS ?? 'start,merchants,restore,suite').split(','));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function child<T>(args: string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, [CHILD, ...args], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as T;
}

/** stripe-stateful-mock: spawn → first 2xx create (POST /v1/charges), polled every 5 ms. */
async function peerStart(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const mock = spawnChild(
    'stripe-stateful-mock',
    [join(REPO_ROOT, 'bench/node_modules/stripe-stateful-mock/dist/cli.js')],
    { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
  );
  try {
    for (;;) {
      const status = await new Promise<number | null>((resolve) => {
        const body = 'amount=1000&currency=usd&source=tok_visa';
        const req = request(
          {
            host: HOST,
            port,
            method: 'POST',
            path: '/v1/charges',
            agent: false,
            headers: {
              authorization: 'Bearer sk_test_bench',
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': String(body.length),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? null));
          },
        );
        req.on('error', () => resolve(null));
        req.end(body);
      });
      if (status !== null && status < 300) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error('stripe-stateful-mock did not start');
      await sleep(5);
    }
  } finally {
    await stopChild(mock);
  }
}

interface StartRun {
  processToFirstCreateMs: number;
  importMs: number;
  startMs: number;
  firstCreateMs: number;
  closeMs: number;
}

interface SuiteRun {
  wallMs: number;
  globalSetupMs: number;
  filesMs: number;
  files: number;
  tests: number;
  /** Time in Sandbank by kind of call, summed over the files. */
  byKind: Record<string, number>;
  /** Calls by kind, summed over the files. */
  calls: Record<string, number>;
}

/** The user suite: SUITE_FILES copies of the template, one vitest run, one server. */
async function userSuite(): Promise<SuiteRun> {
  const files = join(SUITE, 'files');
  const results = join(SUITE, 'results');
  rmSync(files, { recursive: true, force: true });
  rmSync(results, { recursive: true, force: true });
  mkdirSync(files, { recursive: true });
  mkdirSync(results, { recursive: true });
  // The template imports the build from its own folder; the copies are one folder deeper.
  const template = readFileSync(join(SUITE, 'suite.template.ts'), 'utf8').replace(
    "from '../../dist/testing.js'",
    "from '../../../dist/testing.js'",
  );
  for (let i = 0; i < SUITE_FILES; i++)
    writeFileSync(join(files, `file-${String(i).padStart(3, '0')}.test.ts`), template);
  const started = performance.now();
  const { stdout } = await execFileAsync(
    join(REPO_ROOT, 'node_modules/.bin/vitest'),
    ['run', '--config', join(SUITE, 'vitest.config.ts'), '--reporter=json'],
    { cwd: SUITE, env: { ...process.env, USER_SUITE_RESULTS: results }, maxBuffer: 64 * 1024 * 1024 },
  );
  const wallMs = performance.now() - started;
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
    numPassedTests: number;
    numFailedTests: number;
  };
  if (report.numFailedTests > 0) throw new Error(`the user suite had ${report.numFailedTests} failed tests`);
  const reports = readdirSync(results).map(
    (name) =>
      JSON.parse(readFileSync(join(results, name), 'utf8')) as {
        ms: number;
        byKind: Record<string, number>;
        calls: Record<string, number>;
      },
  );
  const perFile = reports.map((report) => report.ms);
  const byKind: Record<string, number> = {};
  for (const report of reports)
    for (const [kind, ms] of Object.entries(report.byKind)) byKind[kind] = (byKind[kind] ?? 0) + ms;
  const calls: Record<string, number> = {};
  for (const report of reports)
    for (const [kind, n] of Object.entries(report.calls)) calls[kind] = (calls[kind] ?? 0) + n;
  const setup = JSON.parse(readFileSync(join(results, '..', 'setup.json'), 'utf8')) as { ms: number };
  rmSync(files, { recursive: true, force: true });
  rmSync(results, { recursive: true, force: true });
  rmSync(join(SUITE, 'setup.json'), { force: true });
  return {
    wallMs,
    globalSetupMs: setup.ms,
    filesMs: perFile.reduce((sum, ms) => sum + ms, 0),
    files: perFile.length,
    tests: report.numPassedTests,
    byKind,
    calls,
  };
}

const fmt = (ms: number, digits = 0) =>
  Number.isFinite(ms)
    ? `${ms.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ms`
    : '–';

async function main(): Promise<void> {
  installExitGuards();
  ensureBuild();
  const loadBefore = loadAverage();
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const rows: Array<[string, string]> = [];
  const targets: Array<[string, string, string, boolean]> = [];
  const ms = (value: number | undefined, digits = 0) => fmt(value ?? Number.NaN, digits);

  if (PARTS.has('start')) {
    console.log(`[start-up] ${STARTS} × startSandbank() and ${STARTS} × stripe-stateful-mock, alternating`);
    const starts: StartRun[] = [];
    const peer: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      starts.push(await child<StartRun>(['start']));
      peer.push(await peerStart());
    }
    const total = median(starts.map((s) => s.processToFirstCreateMs));
    const peerMs = median(peer);
    rows.push(
      ['startSandbank(): process start → first create answered', ms(total)],
      ['… of which importing `sandbank/testing`', ms(median(starts.map((s) => s.importMs)))],
      ['… of which startSandbank()', ms(median(starts.map((s) => s.startMs)))],
      ['… of which the first create', ms(median(starts.map((s) => s.firstCreateMs)))],
      ['close()', ms(median(starts.map((s) => s.closeMs)))],
      ['stripe-stateful-mock: spawn → first create answered', ms(peerMs)],
    );
    console.log(rows.slice(-6));
    targets.push([
      'startSandbank() to a first create ÷ the peer (paid once per run with a shared server)',
      'reported',
      `${(total / peerMs).toFixed(1)}×`,
      true,
    ]);
  }

  if (PARTS.has('merchants')) {
    console.log(`[merchant per file] ${MERCHANTS} merchants`);
    const m = await child<Record<string, number>>(['merchants', String(MERCHANTS)]);
    console.log(m);
    rows.push(
      [
        'a merchant per file (newMerchant), median / p95',
        `${ms(m.merchantMedianMs, 1)} / ${ms(m.merchantP95Ms, 1)}`,
      ],
      [
        '… with its webhook receiver, median / p95',
        `${ms(m.merchantWithReceiverMedianMs, 1)} / ${ms(m.merchantWithReceiverP95Ms, 1)}`,
      ],
    );
    targets.push([
      'a new merchant for a file',
      '≤ 50 ms',
      ms(m.merchantMedianMs, 1),
      (m.merchantMedianMs ?? Infinity) <= 50,
    ]);
  }

  if (PARTS.has('restore')) {
    const stores: Array<[string, NodeJS.ProcessEnv | null]> = [['PGlite', {}]];
    const adminUrl = process.env.BENCH_POSTGRES_URL;
    const scratch = adminUrl ? scratchDatabases(adminUrl, 'sandbank_bench_testing') : null;
    try {
      if (scratch) stores.push(['Postgres', { BENCH_DATABASE_URL: await scratch.create() }]);
      for (const [store, env] of stores) {
        console.log(`[snapshot restore] ${SNAPSHOT_OBJECTS} collections, ${RESTORES} restores, ${store}`);
        const r = await child<Record<string, number>>(
          ['restore', String(SNAPSHOT_OBJECTS), String(RESTORES)],
          env ?? {},
        );
        console.log(r);
        rows.push(
          [`snapshot of ${SNAPSHOT_OBJECTS} collections: save (${store})`, ms(r.saveMs)],
          [`… restore, median / p95 (${store})`, `${ms(r.restoreMedianMs, 1)} / ${ms(r.restoreP95Ms, 1)}`],
          [`… a reset of the same merchant, median (${store})`, ms(r.resetMedianMs, 1)],
        );
        targets.push([
          `snapshot restore, ${SNAPSHOT_OBJECTS} objects (${store})`,
          '≤ 100 ms',
          ms(r.restoreMedianMs, 1),
          (r.restoreMedianMs ?? Infinity) <= 100,
        ]);
      }
    } finally {
      await scratch?.dropAll();
    }
  }

  if (PARTS.has('suite')) {
    console.log(`[user suite] ${SUITE_FILES} files × 20 tests, one server`);
    const suite = await userSuite();
    console.log(suite);
    const inSandbank = suite.globalSetupMs + suite.filesMs;
    rows.push(
      [`user suite: ${suite.files} files, ${suite.tests} tests, vitest's wall time`, ms(suite.wallMs)],
      ['… time in Sandbank (global setup + every call of every file)', ms(inSandbank)],
      ['… of which the global setup (the server’s start)', ms(suite.globalSetupMs)],
      ...Object.entries(suite.byKind)
        .sort((a, b) => b[1] - a[1])
        .map(([kind, spent]): [string, string] => {
          const n = suite.calls[kind] ?? 0;
          return [
            `… of which ${kind} (${n.toLocaleString('en-US')} calls, ${fmt(spent / n, 1)} each)`,
            ms(spent),
          ];
        }),
    );
    targets.push([
      `the ${suite.files} × 20 user suite's time in Sandbank`,
      `≤ ${(200 * suite.files).toLocaleString('en-US')} ms`,
      ms(inSandbank),
      inSandbank <= 200 * suite.files,
    ]);
  }
  const loadAfter = loadAverage();

  const table = (header: string[], body: string[][]) =>
    [
      `| ${header.join(' | ')} |`,
      `| ${header.map(() => '---').join(' | ')} |`,
      ...body.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n');
  const section = [
    '<!-- testing api run -->',
    '### The recorded testing-API run',
    '',
    `Commit ${commit()}, ${when} UTC; ${machine()}; load average (1/5/15 min) ${loadBefore} before and ${loadAfter} after. Medians of ${STARTS} starts, ${MERCHANTS} merchants, ${RESTORES} restores.`,
    '',
    table(['', 'measured'], rows),
    '',
    table(
      ['target', 'goal', 'measured', ''],
      targets.map(([name, goal, measured, held]) => [
        name,
        goal,
        measured,
        goal === 'reported' ? '' : held ? 'held' : '**missed**',
      ]),
    ),
    '',
  ].join('\n');
  console.log(`\n${section}`);
  if (process.env.BENCH_WRITE !== '0') {
    const doc = writeBenchmarksSection(
      '<!-- testing api run -->',
      '<!-- end of testing api run -->',
      section,
    );
    console.log(`written to ${doc}`);
  }
}

runBench(main);
