/**
 * The benchmark of record: Sandbank against its peers in one run, on this machine.
 *
 *   npm run bench                                      # ceiling, stripe-stateful-mock, Sandbank on PGlite
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench   # + Sandbank on Postgres
 *
 * Targets, each a child process on 127.0.0.1:
 *   - ceiling: a bare node:http server that reads the body and answers a small JSON document;
 *   - stripe-stateful-mock: an npm Stripe mock that keeps state in memory (nothing durable),
 *     creating charges (POST /v1/charges);
 *   - Sandbank on PGlite (`node dist/main.js` on a data folder, and `--memory` for start-up and
 *     memory) and, with BENCH_POSTGRES_URL, on Postgres (a database of its own, dropped after),
 *     creating collections (POST /v1/collect: the collection, its outbox event and its expiry job);
 *   - Sandbank's Stripe dialect (PGlite, on its own port): the peer's very request (POST /v1/charges
 *     with tok_visa); PaymentIntents created (the peer has none: compared with its charge create, the
 *     nearest operation, and with the native collection create of the same run), created and
 *     confirmed with pm_card_visa, and created with a new Idempotency-Key each, as the SDK sends them.
 *
 * For each: start-up (spawn → first 2xx create; first output line), idle RSS, then load from wrk in
 * its own process (50 connections, then 1), RSS after the load, and for Sandbank the mixed workload
 * (bench/mixed-load.ts, its own process). Every round runs every target, in turn; the table shows
 * medians over rounds. The run ends by writing docs/internals/benchmarks.md (BENCH_WRITE=0 to skip).
 *
 * BENCH_ROUNDS (default 2), BENCH_DURATION (seconds per load run, default 10), BENCH_STARTS (starts
 * per start-up case per round, default 3).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  CEILING_SERVER_CODE,
  commit,
  ensureBuild,
  envInteger,
  freePort,
  HOST,
  installExitGuards,
  type Launch,
  loadAverage,
  type ManagedChild,
  machine,
  readDurationSeconds,
  requestJson,
  runBench,
  SECRET_KEY,
  sandbankLaunch,
  scratchDatabases,
  sleep,
  spawnChild,
  stopChild,
  writeBenchmarksSection,
} from './harness.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const execFileAsync = promisify(execFile);
const CONNECTIONS = 50;
const MIXED_CONNECTIONS = 30;
const WARMUP_S = 2;
const ONE_CONNECTION_S = 5;
const IDLE_SETTLE_MS = 1500;
/** The paced mix's rate (requests per second): BENCH_MIX_RATE. */
const MIX_RATE = envInteger('BENCH_MIX_RATE', 200, 1, 100_000);
const STARTUP_TIMEOUT_MS = 60_000;
const COLLECT_BODY = JSON.stringify({ amount: 125.5, currency: 'USD', email: 'bench@example.com' });
const CHARGE_BODY = 'amount=12550&currency=usd&source=tok_visa';

// ---------------------------------------------------------------------------------------------
// Targets.

interface Create {
  /** POST unless GET (a read: no body). */
  method?: 'GET';
  path: string;
  contentType: string;
  body: string;
  /** A new Idempotency-Key on every request. */
  keyed?: boolean;
}

const SANDBANK_CREATE: Create = { path: '/v1/collect', contentType: 'application/json', body: COLLECT_BODY };
const MOCK_CREATE: Create = {
  path: '/v1/charges',
  contentType: 'application/x-www-form-urlencoded',
  body: CHARGE_BODY,
};

/** A PaymentIntent created (to be confirmed later, by the client): the dialect's own create. */
const INTENT_CREATE: Create = {
  path: '/v1/payment_intents',
  contentType: 'application/x-www-form-urlencoded',
  body: 'amount=12550&currency=usd',
};

/** A PaymentIntent created and confirmed in one request: what Stripe's quick-starts do. */
const INTENT_CONFIRMED: Create = {
  ...INTENT_CREATE,
  body: `${INTENT_CREATE.body}&payment_method=pm_card_visa&confirm=true`,
};

/** The create as the official SDK sends it: a new Idempotency-Key on every POST. */
const INTENT_KEYED: Create = { ...INTENT_CREATE, keyed: true };

type Peer = 'ceiling' | 'stripe-stateful-mock' | 'sandbank-pglite' | 'sandbank-postgres' | 'sandbank-stripe';

function ceilingLaunch(port: number): Launch {
  return {
    name: 'ceiling',
    args: ['-e', CEILING_SERVER_CODE],
    env: { ...process.env, PORT: String(port), HOST },
  };
}

function mockLaunch(port: number): Launch {
  return {
    name: 'stripe-stateful-mock',
    args: [join(REPO_ROOT, 'bench/node_modules/stripe-stateful-mock/dist/cli.js')],
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
  };
}

// ---------------------------------------------------------------------------------------------
// Probes.

/** Status of one request, or null when it failed (refused, reset, timed out). */
function post(port: number, create: Create, timeoutMs = 2000): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: HOST,
        port,
        method: 'POST',
        path: create.path,
        agent: false,
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${SECRET_KEY}`,
          'content-type': create.contentType,
          'content-length': String(Buffer.byteLength(create.body)),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? null));
        res.on('error', () => resolve(null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end(create.body);
  });
}

interface Started {
  child: ManagedChild;
  /** Spawn → first byte the process wrote (banner or progress line). */
  firstOutputMs: number;
  /** Spawn → first 2xx create. */
  firstCreateMs: number;
}

async function start(launch: Launch, port: number, create: Create): Promise<Started> {
  let firstOutputMs = Number.NaN;
  const t0 = performance.now();
  const child = spawnChild(launch.name, launch.args, launch.env);
  const onOutput = () => {
    if (Number.isNaN(firstOutputMs)) firstOutputMs = performance.now() - t0;
  };
  child.process.stdout?.once('data', onOutput);
  child.process.stderr?.once('data', onOutput);
  while (performance.now() - t0 < STARTUP_TIMEOUT_MS) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${launch.name} exited before its first create.\n${child.output()}`);
    }
    const status = await post(port, create);
    if (status !== null && status >= 200 && status < 300) {
      return { child, firstOutputMs, firstCreateMs: performance.now() - t0 };
    }
    if (status !== null) throw new Error(`${launch.name}: the create answered ${status}.\n${child.output()}`);
    await sleep(5);
  }
  await stopChild(child);
  throw new Error(`${launch.name}: no 2xx create within ${STARTUP_TIMEOUT_MS / 1000} s.\n${child.output()}`);
}

/** Resident set size of a process in MB (its threads included), from /proc. */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

// ---------------------------------------------------------------------------------------------
// Load: wrk in its own process.

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
}

function wrkScript(create: Create): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbank-wrk-'));
  const file = join(dir, 'create.lua');
  const lua = (text: string) => JSON.stringify(text);
  const authorization = `wrk.headers["Authorization"] = ${lua(`Bearer ${SECRET_KEY}`)}`;
  writeFileSync(
    file,
    (create.method === 'GET'
      ? [`wrk.method = "GET"`, authorization, '']
      : [
          `wrk.method = "POST"`,
          `wrk.body = ${lua(create.body)}`,
          `wrk.headers["Content-Type"] = ${lua(create.contentType)}`,
          authorization,
          ...(create.keyed
            ? [
                'local sent = 0',
                'local prefix = tostring(os.time()) .. "-" .. tostring(math.random(1, 1e9)) .. "-"',
                'request = function()',
                '  sent = sent + 1',
                '  wrk.headers["Idempotency-Key"] = prefix .. sent',
                '  return wrk.format()',
                'end',
              ]
            : []),
          '',
        ]
    ).join('\n'),
  );
  return file;
}

/**
 * The path of one object to read back at one connection (GET), made first: a collection by its
 * reference on Sandbank, a charge by its id on the peer; the ceiling answers any path.
 */
async function readPath(peer: Peer, port: number): Promise<string> {
  if (peer === 'ceiling') return '/v1/read';
  const agent = new Agent({ keepAlive: false });
  if (peer === 'stripe-stateful-mock' || peer === 'sandbank-stripe') {
    const reply = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: HOST,
          port,
          method: 'POST',
          path: MOCK_CREATE.path,
          headers: {
            authorization: `Bearer ${SECRET_KEY}`,
            'content-type': MOCK_CREATE.contentType,
            'content-length': String(Buffer.byteLength(MOCK_CREATE.body)),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        },
      );
      req.on('error', reject);
      req.end(MOCK_CREATE.body);
    });
    return `/v1/charges/${(JSON.parse(reply) as { id: string }).id}`;
  }
  const reference = `bench-read-${Date.now()}`;
  const made = await requestJson(agent, port, 'POST', '/v1/collect', SECRET_KEY, {
    amount: 12.5,
    currency: 'USD',
    reference,
  });
  if (made.status !== 200) throw new Error(`could not create the collection to read: ${made.status}`);
  return `/v1/collections/${reference}`;
}

function parseMs(value: string, unit: string): number {
  const n = Number(value);
  if (unit === 'us') return n / 1000;
  if (unit === 's') return n * 1000;
  if (unit === 'm') return n * 60_000;
  return n;
}

async function wrk(port: number, create: Create, connections: number, seconds: number): Promise<Load> {
  const script = wrkScript(create);
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '30s', '-s', script];
  try {
    const out = await output('wrk', [...args, `http://${HOST}:${port}${create.path}`]);
    const latency = (p: string) => {
      const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
      return match ? parseMs(match[1] as string, match[2] as string) : Number.NaN;
    };
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
    if (Number.isNaN(rps)) throw new Error(`wrk printed no rate:\n${out}`);
    return { rps, p50: latency('50'), p99: latency('99'), requests, bad: non2xx + socketErrors };
  } finally {
    rmSync(script, { force: true });
  }
}

/** What a command prints on stdout (stderr too), once it has exited 0; its output on failure. */
async function output(command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 2 ** 20,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} failed: ${(error as Error).message}\n${stdout}${stderr}`);
  }
}

interface Mixed {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  detail: string;
}

/** The operations bench/operations-load.ts times one at a time. */
const OPERATION_NAMES = [
  'create a collection',
  'pay a collection',
  'a card payment',
  'read a collection',
  'a list',
  'balances',
  'events',
];

interface Operations {
  operations: Record<string, { p50: number; p99: number; n: number }>;
  paced: { rate: number; achieved: number; p50: number; p99: number; bad: number; sent: number };
}

/** bench/operations-load.ts in its own process: each operation one at a time, then the paced mix. */
async function operations(port: number, seconds: number): Promise<Operations> {
  const out = await output(process.execPath, [
    '--import',
    'tsx',
    join(REPO_ROOT, 'bench/operations-load.ts'),
    `http://${HOST}:${port}`,
    String(Math.max(1, Math.round(seconds / 4))),
    String(MIX_RATE),
    String(seconds),
  ]);
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Operations;
}

async function mixed(port: number, seconds: number): Promise<Mixed> {
  const out = await output(process.execPath, [
    '--import',
    'tsx',
    join(REPO_ROOT, 'bench/mixed-load.ts'),
    `http://${HOST}:${port}`,
    String(MIXED_CONNECTIONS),
    String(WARMUP_S),
    String(seconds),
  ]);
  const r = JSON.parse(out.trim().split('\n').at(-1) as string) as {
    rps: number;
    p50: number;
    p99: number;
    requests: number;
    non2xx: number;
    non2xxBy: Record<string, number>;
    errors: number;
    steps: Record<string, number>;
  };
  const bad = r.non2xx + r.errors;
  const detail = `${Object.entries(r.steps)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}${bad ? `; non-2xx ${JSON.stringify(r.non2xxBy)}, errors ${r.errors}` : ''}`;
  return { rps: r.rps, p50: r.p50, p99: r.p99, requests: r.requests, bad, detail };
}

// ---------------------------------------------------------------------------------------------
// One round.

/** Every number of one round, by peer and metric name. */
type Round = Map<string, number>;

function record(round: Round, peer: Peer, metric: string, value: number): void {
  round.set(`${peer}|${metric}`, value);
}

async function startTimes(
  round: Round,
  peer: Peer,
  metric: string,
  starts: number,
  launchFor: (port: number, i: number) => Promise<Launch> | Launch,
  create: Create,
  afterStart?: (started: Started, port: number) => Promise<void>,
): Promise<void> {
  const times: number[] = [];
  const firstOutput: number[] = [];
  for (let i = 0; i < starts; i++) {
    const port = await freePort();
    const started = await start(await launchFor(port, i), port, create);
    times.push(started.firstCreateMs);
    firstOutput.push(started.firstOutputMs);
    if (afterStart) await afterStart(started, port);
    else await stopChild(started.child);
  }
  record(round, peer, `start ${metric}`, median(times));
  const outputs = firstOutput.filter((v) => !Number.isNaN(v));
  if (outputs.length > 0) record(round, peer, `first output ${metric}`, median(outputs));
  console.log(
    `  start ${metric}: ${times.map((t) => t.toFixed(0)).join(', ')} ms` +
      (outputs.length ? ` (first output ${outputs.map((t) => t.toFixed(0)).join(', ')} ms)` : ''),
  );
}

/** Idle RSS, creates at 50 connections and at 1, RSS after; the mixed workload for Sandbank. */
async function measureServer(
  round: Round,
  peer: Peer,
  started: Started,
  port: number,
  create: Create,
  seconds: number,
  withMixed: boolean,
): Promise<void> {
  await sleep(IDLE_SETTLE_MS);
  const pid = started.child.process.pid;
  const idle = rssMb(pid);
  record(round, peer, 'idle rss', idle);
  await wrk(port, create, CONNECTIONS, WARMUP_S);
  const load = await wrk(port, create, CONNECTIONS, seconds);
  record(round, peer, 'rps 50', load.rps);
  record(round, peer, 'p50 50', load.p50);
  record(round, peer, 'p99 50', load.p99);
  record(round, peer, 'bad 50', load.bad);
  const single = await wrk(port, create, 1, ONE_CONNECTION_S);
  record(round, peer, 'p50 1', single.p50);
  record(round, peer, 'p99 1', single.p99);
  record(round, peer, 'bad 1', single.bad);
  const read: Create = { method: 'GET', path: await readPath(peer, port), contentType: '', body: '' };
  const reads = await wrk(port, read, 1, ONE_CONNECTION_S);
  record(round, peer, 'read p50 1', reads.p50);
  record(round, peer, 'read p99 1', reads.p99);
  record(round, peer, 'read bad 1', reads.bad);
  console.log(
    `  idle ${idle.toFixed(0)} MB; 50 conn ${load.rps.toFixed(0)}/s p50 ${load.p50.toFixed(2)} p99 ` +
      `${load.p99.toFixed(2)} ms (${load.requests} requests, ${load.bad} bad); 1 conn p50 ${single.p50.toFixed(3)} ms, ` +
      `read p50 ${reads.p50.toFixed(3)} ms`,
  );
  if (withMixed) {
    const m = await mixed(port, seconds);
    record(round, peer, 'mixed rps', m.rps);
    record(round, peer, 'mixed p50', m.p50);
    record(round, peer, 'mixed p99', m.p99);
    record(round, peer, 'mixed bad', m.bad);
    console.log(
      `  mixed ${m.rps.toFixed(0)}/s p50 ${m.p50.toFixed(1)} p99 ${m.p99.toFixed(1)} ms (${m.requests}: ${m.detail})`,
    );
    const ops = await operations(port, seconds);
    for (const [name, o] of Object.entries(ops.operations)) record(round, peer, `op ${name} p50`, o.p50);
    record(round, peer, 'paced rate', ops.paced.rate);
    record(round, peer, 'paced achieved', ops.paced.achieved);
    record(round, peer, 'paced p50', ops.paced.p50);
    record(round, peer, 'paced p99', ops.paced.p99);
    record(round, peer, 'paced bad', ops.paced.bad);
    console.log(
      `  one at a time, p50: ${Object.entries(ops.operations)
        .map(([name, o]) => `${name} ${o.p50.toFixed(2)} ms`)
        .join(', ')}`,
    );
    console.log(
      `  paced mix at ${ops.paced.rate}/s: ${ops.paced.achieved.toFixed(0)}/s answered, p50 ${ops.paced.p50.toFixed(1)} p99 ${ops.paced.p99.toFixed(1)} ms, ${ops.paced.bad} bad`,
    );
  }
  const after = rssMb(pid);
  record(round, peer, 'rss after', after);
  console.log(`  RSS after the load ${after.toFixed(0)} MB (${(after / idle).toFixed(2)}× idle)`);
}

/**
 * The Stripe dialect on its own port (PGlite on a data folder): the peer's charge create and read,
 * measured as the peer's are, then PaymentIntents created and confirmed, at 50 connections and at 1.
 */
async function measureStripeDialect(round: Round, dataDir: string, seconds: number): Promise<void> {
  const [port, stripePort] = [await freePort(), await freePort()];
  const launch = sandbankLaunch(port, { dataDir });
  launch.env = { ...launch.env, STRIPE_PORT: String(stripePort) };
  const s = await start(launch, stripePort, MOCK_CREATE);
  try {
    await measureServer(round, 'sandbank-stripe', s, stripePort, MOCK_CREATE, seconds, false);
    const cases: [string, Create, boolean][] = [
      ['intent', INTENT_CREATE, true],
      ['confirmed', INTENT_CONFIRMED, true],
      ['keyed', INTENT_KEYED, false],
    ];
    for (const [name, create, alone] of cases) {
      await wrk(stripePort, create, CONNECTIONS, WARMUP_S);
      const load = await wrk(stripePort, create, CONNECTIONS, seconds);
      record(round, 'sandbank-stripe', `${name} rps 50`, load.rps);
      record(round, 'sandbank-stripe', `${name} p50 50`, load.p50);
      record(round, 'sandbank-stripe', `${name} p99 50`, load.p99);
      record(round, 'sandbank-stripe', `${name} bad 50`, load.bad);
      const single = alone ? await wrk(stripePort, create, 1, ONE_CONNECTION_S) : null;
      if (single) record(round, 'sandbank-stripe', `${name} p50 1`, single.p50);
      console.log(
        `  PaymentIntents, ${name}: 50 conn ${load.rps.toFixed(0)}/s p50 ${load.p50.toFixed(2)} p99 ${load.p99.toFixed(2)} ms ` +
          `(${load.requests} requests, ${load.bad} bad)${single ? `; 1 conn p50 ${single.p50.toFixed(3)} ms` : ''}`,
      );
    }
  } finally {
    await stopChild(s.child);
  }
}

/** Starts and stops a server once, untimed: what the 'existing' cases start from. */
/**
 * Creates and reads at one connection on a server started with SANDBANK_DURABILITY=relaxed (what
 * the testing API starts): `relaxed p50 1` and `relaxed read p50 1`.
 */
async function measureRelaxed(round: Round, peer: Peer, launch: Launch): Promise<void> {
  const port = await freePort();
  launch.env = { ...launch.env, PORT: String(port), SANDBANK_DURABILITY: 'relaxed' };
  const s = await start(launch, port, SANDBANK_CREATE);
  try {
    await wrk(port, SANDBANK_CREATE, 1, WARMUP_S);
    const creates = await wrk(port, SANDBANK_CREATE, 1, ONE_CONNECTION_S);
    const read: Create = { method: 'GET', path: await readPath(peer, port), contentType: '', body: '' };
    const reads = await wrk(port, read, 1, ONE_CONNECTION_S);
    record(round, peer, 'relaxed p50 1', creates.p50);
    record(round, peer, 'relaxed read p50 1', reads.p50);
    console.log(
      `  relaxed durability: 1 conn create p50 ${creates.p50.toFixed(3)} ms, read p50 ${reads.p50.toFixed(3)} ms`,
    );
  } finally {
    await stopChild(s.child);
  }
}

async function startOnce(
  launch: typeof sandbankLaunch,
  store: Parameters<typeof sandbankLaunch>[1],
): Promise<void> {
  const port = await freePort();
  const started = await start(launch(port, store), port, SANDBANK_CREATE);
  await stopChild(started.child);
}

async function killAndRestart(dataDir: string): Promise<void> {
  // A server that acknowledged creates, killed without warning: the next start recovers the folder.
  const port = await freePort();
  const started = await start(sandbankLaunch(port, { dataDir }), port, SANDBANK_CREATE);
  for (let i = 0; i < 20; i++) await post(port, SANDBANK_CREATE);
  started.child.process.kill('SIGKILL');
  await new Promise((resolve) => started.child.process.once('exit', resolve));
}

async function runRound(
  index: number,
  seconds: number,
  starts: number,
  postgresUrl?: string,
): Promise<Round> {
  const round: Round = new Map();
  console.log(`\n=== round ${index + 1}`);

  console.log('[ceiling] bare node:http');
  await startTimes(round, 'ceiling', 'fresh', starts, ceilingLaunch, SANDBANK_CREATE, async (s, port) => {
    await measureServer(round, 'ceiling', s, port, SANDBANK_CREATE, seconds, false);
    await stopChild(s.child);
  });

  console.log('[stripe-stateful-mock] POST /v1/charges');
  await startTimes(
    round,
    'stripe-stateful-mock',
    'fresh',
    starts,
    mockLaunch,
    MOCK_CREATE,
    async (s, port) => {
      await measureServer(round, 'stripe-stateful-mock', s, port, MOCK_CREATE, seconds, false);
      await stopChild(s.child);
    },
  );

  console.log('[sandbank-pglite] node dist/main.js (data folder; --memory)');
  const folders: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbank-bench-'));
    folders.push(dir);
    return dir;
  };
  try {
    await startTimes(
      round,
      'sandbank-pglite',
      'fresh',
      starts,
      (port) => sandbankLaunch(port, { dataDir: fresh() }),
      SANDBANK_CREATE,
    );
    const existing = fresh();
    await startOnce(sandbankLaunch, { dataDir: existing });
    await startTimes(
      round,
      'sandbank-pglite',
      'existing',
      starts,
      (port) => sandbankLaunch(port, { dataDir: existing }),
      SANDBANK_CREATE,
    );
    await startTimes(
      round,
      'sandbank-pglite',
      'after SIGKILL',
      starts,
      async (port) => {
        await killAndRestart(existing);
        return sandbankLaunch(port, { dataDir: existing });
      },
      SANDBANK_CREATE,
    );
    await startTimes(
      round,
      'sandbank-pglite',
      'memory',
      starts,
      (port) => sandbankLaunch(port, { memory: true }),
      SANDBANK_CREATE,
      async (s) => {
        await sleep(IDLE_SETTLE_MS);
        record(round, 'sandbank-pglite', 'idle rss memory', rssMb(s.child.process.pid));
        await stopChild(s.child);
      },
    );
    const port = await freePort();
    const s = await start(sandbankLaunch(port, { dataDir: fresh() }), port, SANDBANK_CREATE);
    try {
      await measureServer(round, 'sandbank-pglite', s, port, SANDBANK_CREATE, seconds, true);
    } finally {
      await stopChild(s.child);
    }
    await measureRelaxed(round, 'sandbank-pglite', sandbankLaunch(0, { dataDir: fresh() }));
    console.log(
      '[sandbank-stripe] the Stripe dialect: POST /v1/charges (tok_visa), POST /v1/payment_intents',
    );
    await measureStripeDialect(round, fresh(), seconds);
  } finally {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  }

  if (postgresUrl) {
    console.log('[sandbank-postgres] node dist/main.js (DATABASE_URL: a database of its own)');
    const databases = scratchDatabases(postgresUrl, 'sandbank_bench');
    const database = databases.create;
    try {
      await startTimes(
        round,
        'sandbank-postgres',
        'fresh',
        starts,
        async (port) => sandbankLaunch(port, { databaseUrl: await database() }),
        SANDBANK_CREATE,
      );
      const migrated = await database();
      await startOnce(sandbankLaunch, { databaseUrl: migrated });
      await startTimes(
        round,
        'sandbank-postgres',
        'existing',
        starts,
        (port) => sandbankLaunch(port, { databaseUrl: migrated }),
        SANDBANK_CREATE,
      );
      const port = await freePort();
      const s = await start(sandbankLaunch(port, { databaseUrl: migrated }), port, SANDBANK_CREATE);
      try {
        await measureServer(round, 'sandbank-postgres', s, port, SANDBANK_CREATE, seconds, true);
      } finally {
        await stopChild(s.child);
      }
      await measureRelaxed(round, 'sandbank-postgres', sandbankLaunch(0, { databaseUrl: migrated }));
    } finally {
      await databases.dropAll();
    }
  }
  return round;
}

// ---------------------------------------------------------------------------------------------
// Report.

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function across(rounds: Round[], peer: Peer, metric: string): number {
  return median(rounds.map((round) => round.get(`${peer}|${metric}`) ?? Number.NaN));
}

const PEERS: [Peer, string][] = [
  ['ceiling', 'bare node:http'],
  ['stripe-stateful-mock', 'stripe-stateful-mock'],
  ['sandbank-pglite', 'Sandbank PGlite'],
  ['sandbank-postgres', 'Sandbank Postgres'],
  ['sandbank-stripe', 'Sandbank Stripe dialect (PGlite)'],
];

function fmt(value: number, digits = 0, unit = ''): string {
  if (Number.isNaN(value)) return '–';
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}`;
}

function table(rounds: Round[], peers: [Peer, string][]): string {
  const v = (peer: Peer, metric: string) => across(rounds, peer, metric);
  const rows: [string, (peer: Peer) => string][] = [
    ['start → first 2xx create, fresh folder / database', (p) => fmt(v(p, 'start fresh'), 0, ' ms')],
    [
      'start → first 2xx create, existing folder / migrated database',
      (p) => fmt(v(p, 'start existing'), 0, ' ms'),
    ],
    ['start → first 2xx create after a SIGKILL', (p) => fmt(v(p, 'start after SIGKILL'), 0, ' ms')],
    ['start → first 2xx create, `--memory`', (p) => fmt(v(p, 'start memory'), 0, ' ms')],
    ['start → first line printed', (p) => fmt(v(p, 'first output fresh'), 0, ' ms')],
    ['idle RSS', (p) => fmt(v(p, 'idle rss'), 0, ' MB')],
    ['idle RSS, `--memory`', (p) => fmt(v(p, 'idle rss memory'), 0, ' MB')],
    ['RSS after the load', (p) => fmt(v(p, 'rss after'), 0, ' MB')],
    ['creates/s at 50 connections', (p) => fmt(v(p, 'rps 50'))],
    ['p50 / p99 at 50 connections', (p) => `${fmt(v(p, 'p50 50'), 1)} / ${fmt(v(p, 'p99 50'), 1)} ms`],
    ['create at 1 connection, p50 / p99', (p) => `${fmt(v(p, 'p50 1'), 2)} / ${fmt(v(p, 'p99 1'), 2)} ms`],
    [
      'read of one object at 1 connection, p50 / p99',
      (p) => `${fmt(v(p, 'read p50 1'), 2)} / ${fmt(v(p, 'read p99 1'), 2)} ms`,
    ],
    [
      'relaxed durability: create / read at 1 connection, p50',
      (p) => `${fmt(v(p, 'relaxed p50 1'), 2)} / ${fmt(v(p, 'relaxed read p50 1'), 2)} ms`,
    ],
    ['PaymentIntents created/s at 50 connections', (p) => fmt(v(p, 'intent rps 50'))],
    [
      'PaymentIntent create p50 / p99 at 50 connections',
      (p) => `${fmt(v(p, 'intent p50 50'), 1)} / ${fmt(v(p, 'intent p99 50'), 1)} ms`,
    ],
    ['PaymentIntent create at 1 connection, p50', (p) => fmt(v(p, 'intent p50 1'), 2, ' ms')],
    ['PaymentIntents created and confirmed/s at 50 connections', (p) => fmt(v(p, 'confirmed rps 50'))],
    [
      'created and confirmed, p50 / p99 at 50 connections',
      (p) => `${fmt(v(p, 'confirmed p50 50'), 1)} / ${fmt(v(p, 'confirmed p99 50'), 1)} ms`,
    ],
    ['created and confirmed at 1 connection, p50', (p) => fmt(v(p, 'confirmed p50 1'), 2, ' ms')],
    [
      'PaymentIntents created/s at 50 connections, a new Idempotency-Key each (as the SDK sends)',
      (p) => fmt(v(p, 'keyed rps 50')),
    ],
    ['mixed work at 30 connections, req/s', (p) => fmt(v(p, 'mixed rps'))],
    ['mixed work p50 / p99', (p) => `${fmt(v(p, 'mixed p50'), 1)} / ${fmt(v(p, 'mixed p99'), 1)} ms`],
    ...OPERATION_NAMES.map((name): [string, (peer: Peer) => string] => [
      `one at a time: ${name}, p50`,
      (p) => fmt(v(p, `op ${name} p50`), 2, ' ms'),
    ]),
    [`paced mix at ${MIX_RATE}/s: answered per s`, (p) => fmt(v(p, 'paced achieved'))],
    ['paced mix p50 / p99', (p) => `${fmt(v(p, 'paced p50'), 1)} / ${fmt(v(p, 'paced p99'), 1)} ms`],
  ];
  const lines = [
    `| | ${peers.map(([, label]) => label).join(' | ')} |`,
    `|---|${peers.map(() => '---').join('|')}|`,
  ];
  for (const [label, cell] of rows) {
    const cells = peers.map(([peer]) => cell(peer));
    if (cells.every((c) => c === '–' || c === '– / – ms')) continue;
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

interface Target {
  label: string;
  measured: number;
  goal: number;
  /** true: the measured value must be at most the goal; false: at least. */
  atMost: boolean;
  unit: string;
}

function targets(rounds: Round[], peers: Peer[]): Target[] {
  const v = (peer: Peer, metric: string) => across(rounds, peer, metric);
  const list: Target[] = [];
  const mock: Peer = 'stripe-stateful-mock';
  const add = (label: string, measured: number, goal: number, atMost: boolean, unit = '') => {
    if (!Number.isNaN(measured)) list.push({ label, measured, goal, atMost, unit });
  };
  const stores: Array<[Peer, string]> = [
    ['sandbank-pglite', 'PGlite'],
    ['sandbank-postgres', 'Postgres'],
  ];
  for (const [p, store] of stores) {
    if (!peers.includes(p)) continue;
    // Ratios to the peer measured in the same run: machines differ several-fold in speed.
    // One connection, durable and relaxed: [label, Sandbank's metric, the peer's, goal].
    const oneConnection: Array<[string, string, string, number]> = [
      ['create p50 at 1 connection', 'p50 1', 'p50 1', 2],
      ['read p50 at 1 connection', 'read p50 1', 'read p50 1', 2],
      ['create p50 at 1 connection, relaxed durability', 'relaxed p50 1', 'p50 1', 1.2],
      ['read p50 at 1 connection, relaxed durability', 'relaxed read p50 1', 'read p50 1', 1.2],
    ];
    for (const [label, mine, theirs, goal] of oneConnection)
      add(`${store} ${label} ÷ the peer's`, v(p, mine) / v(mock, theirs), goal, true, '×');
    add(
      `${store} creates/s at 50 connections ÷ the peer's`,
      v(p, 'rps 50') / v(mock, 'rps 50'),
      1.2,
      false,
      '×',
    );
    add(`${store} p99 at 50 connections ÷ the peer's`, v(p, 'p99 50') / v(mock, 'p99 50'), 1, true, '×');
    for (const name of OPERATION_NAMES) {
      const limit = name === 'pay a collection' ? 12 : 6;
      add(
        `${store} one at a time, ${name} ÷ the peer's create`,
        v(p, `op ${name} p50`) / v(mock, 'p50 1'),
        limit,
        true,
        '×',
      );
    }
    add(
      `${store} paced mix: answered ÷ the ${MIX_RATE}/s sent`,
      v(p, 'paced achieved') / v(p, 'paced rate'),
      0.95,
      false,
      '×',
    );
    add(`${store} paced mix p99`, v(p, 'paced p99'), 100, true, ' ms');
  }
  if (peers.includes('sandbank-stripe')) {
    // The native API's targets, for the dialect: on the peer's own request, and for PaymentIntents.
    const p: Peer = 'sandbank-stripe';
    add(
      "Stripe dialect charge create p50 at 1 connection ÷ the peer's",
      v(p, 'p50 1') / v(mock, 'p50 1'),
      2,
      true,
      '×',
    );
    add(
      "Stripe dialect charge read p50 at 1 connection ÷ the peer's",
      v(p, 'read p50 1') / v(mock, 'read p50 1'),
      2,
      true,
      '×',
    );
    add(
      "Stripe dialect charges/s at 50 connections ÷ the peer's",
      v(p, 'rps 50') / v(mock, 'rps 50'),
      1.2,
      false,
      '×',
    );
    add(
      "Stripe dialect charge p99 at 50 connections ÷ the peer's",
      v(p, 'p99 50') / v(mock, 'p99 50'),
      1,
      true,
      '×',
    );
    add(
      "Stripe dialect PaymentIntent create p50 at 1 connection ÷ the peer's charge create",
      v(p, 'intent p50 1') / v(mock, 'p50 1'),
      2,
      true,
      '×',
    );
    add(
      "Stripe dialect PaymentIntent creates/s at 50 connections ÷ the peer's charge creates",
      v(p, 'intent rps 50') / v(mock, 'rps 50'),
      1.2,
      false,
      '×',
    );
    add(
      "Stripe dialect PaymentIntent create p99 at 50 connections ÷ the peer's charge create",
      v(p, 'intent p99 50') / v(mock, 'p99 50'),
      1,
      true,
      '×',
    );
    if (peers.includes('sandbank-pglite')) {
      // The same targets held as the native API holds them: its collection create, the same store,
      // the same run (within a tenth: two runs on one machine differ by that much).
      const native: Peer = 'sandbank-pglite';
      add(
        'Stripe dialect PaymentIntent creates/s ÷ the native collection creates/s (both at 50 connections)',
        v(p, 'intent rps 50') / v(native, 'rps 50'),
        0.9,
        false,
        '×',
      );
      add(
        'Stripe dialect PaymentIntent create p99 ÷ the native collection create p99 (50 connections)',
        v(p, 'intent p99 50') / v(native, 'p99 50'),
        1.1,
        true,
        '×',
      );
      add(
        'Stripe dialect PaymentIntent create p50 ÷ the native collection create p50 (1 connection)',
        v(p, 'intent p50 1') / v(native, 'p50 1'),
        1.1,
        true,
        '×',
      );
    }
  }
  const peerStart = v(mock, 'start fresh');
  if (peers.includes('sandbank-pglite')) {
    const p: Peer = 'sandbank-pglite';
    add("PGlite start, fresh folder ÷ the peer's", v(p, 'start fresh') / peerStart, 2.5, true, '×');
    add("PGlite start, existing folder ÷ the peer's", v(p, 'start existing') / peerStart, 2, true, '×');
    add("PGlite start, --memory ÷ the peer's", v(p, 'start memory') / peerStart, 2, true, '×');
    add('PGlite idle RSS', v(p, 'idle rss'), 200, true, ' MB');
    add('PGlite idle RSS, --memory', v(p, 'idle rss memory'), 250, true, ' MB');
  }
  if (peers.includes('sandbank-postgres')) {
    const p: Peer = 'sandbank-postgres';
    add("Postgres start, migrated ÷ the peer's", v(p, 'start existing') / peerStart, 2, true, '×');
    add('Postgres idle RSS', v(p, 'idle rss'), 100, true, ' MB');
  }
  return list;
}

function targetLines(list: Target[]): string {
  const lines = ['| target | goal | measured | |', '|---|---|---|---|'];
  for (const t of list) {
    const held = t.atMost ? t.measured <= t.goal : t.measured >= t.goal;
    const digits = t.unit === '×' ? 2 : t.measured < 10 ? 2 : 0;
    lines.push(
      `| ${t.label} | ${t.atMost ? '≤' : '≥'} ${fmt(t.goal, t.unit === '×' ? 2 : 0)}${t.unit} | ` +
        `${fmt(t.measured, digits)}${t.unit} | ${held ? 'held' : '**missed**'} |`,
    );
  }
  return lines.join('\n');
}

function perRound(rounds: Round[]): string {
  const keys = [...new Set(rounds.flatMap((round) => [...round.keys()]))].sort();
  const lines = [`| peer | metric | ${rounds.map((_, i) => `round ${i + 1}`).join(' | ')} |`];
  lines.push(`|---|---|${rounds.map(() => '---').join('|')}|`);
  for (const key of keys) {
    const [peer, metric] = key.split('|');
    lines.push(
      `| ${peer} | ${metric} | ${rounds.map((r) => fmt(r.get(key) ?? Number.NaN, 2)).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  installExitGuards();
  const seconds = readDurationSeconds();
  const rounds = envInteger('BENCH_ROUNDS', 2, 1, 100);
  const starts = envInteger('BENCH_STARTS', 3, 1, 100);
  const postgresUrl = process.env.BENCH_POSTGRES_URL?.trim() || undefined;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is an error.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('wrk is not installed (Debian: apt-get install -y wrk).');
    }
  }
  ensureBuild();
  if (!postgresUrl) console.log('BENCH_POSTGRES_URL is not set: Sandbank on Postgres is skipped.');
  const loadBefore = loadAverage();
  const startedAt = new Date();
  const results: Round[] = [];
  for (let i = 0; i < rounds; i++) results.push(await runRound(i, seconds, starts, postgresUrl));
  const loadAfter = loadAverage();

  const peers = PEERS.filter(([peer]) =>
    results.some((r) => [...r.keys()].some((k) => k.startsWith(`${peer}|`))),
  );
  const summary = table(results, peers);
  const goals = targetLines(
    targets(
      results,
      peers.map(([p]) => p),
    ),
  );
  console.log(`\n${summary}\n\n${goals}\n`);
  console.log(`Machine: ${machine()}; load average (1/5/15 min) before ${loadBefore}, after ${loadAfter}`);

  if (process.env.BENCH_WRITE !== '0') {
    const marker = '<!-- recorded run -->';
    const recorded = [
      marker,
      '## The recorded run',
      '',
      `Commit ${commit()}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; ` +
        `load average (1/5/15 min) ${loadBefore} before and ${loadAfter} after. ${rounds} rounds, ` +
        `medians; ${seconds} s per load run after ${WARMUP_S} s of warm-up; ${starts} starts per start-up case per round.`,
      '',
      summary,
      '',
      goals,
      '',
      '<details><summary>Every round</summary>',
      '',
      perRound(results),
      '',
      '</details>',
      '',
    ].join('\n');
    const doc = writeBenchmarksSection(marker, '<!-- end of recorded run -->', recorded);
    console.log(`Wrote ${doc}.`);
  }
}

runBench(main);
