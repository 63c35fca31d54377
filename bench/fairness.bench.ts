/**
 * Fairness: one merchant's abuse must not slow another merchant down.
 *
 *   npm run bench:fairness                                          # Sandbank on PGlite
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:fairness   # + Postgres
 *
 * `npm run bench` runs it after the benchmark of record. Per store it starts the built server
 * (`node dist/main.js`; PGlite on a fresh data folder, Postgres on a database of its own, dropped
 * after) and signs up a victim merchant (keyless POST /v1/merchants) with a webhook endpoint at a
 * fast receiver in this process. The victim runs a closed loop on one connection — POST
 * /v1/collect, then GET /v1/collections/{id} — and every request is timed; each create's
 * `collection.created` webhook is timed from the create's answer to its arrival. Phases, each
 * BENCH_FAIRNESS_SECONDS long (default 12), every abuse from a merchant of its own, signed up for it:
 *
 *   baseline   nothing else runs;
 *   graphql    two requests in flight back to back, each 15 aliases × nodes(ids:) of 100 made-up ids;
 *   clock      one POST /v1/clock/advance, 1 s into the phase, over BENCH_FAIRNESS_JOBS (default
 *              2,000) pending collections whose expiry jobs fall due in it (made before the phase);
 *   webhooks   16 endpoints at a TCP server on 127.0.0.1 that accepts and never answers, and
 *              BENCH_FAIRNESS_EVENTS_PER_S (default 20) collections a second, each an event for all 16.
 *
 * Targets, per abuse phase: the victim's p99 ≤ 3× its baseline p99 of the same run or ≤ 150 ms;
 * its longest request ≤ 1 s; each of its webhooks within 2 s of the create's answer. A missed
 * target prints FAIL and does not change the exit code, which reports only a run that could not
 * complete. BENCH_FAIRNESS_PHASES (e.g. "graphql,clock") runs some abuses only; BENCH_WRITE=0
 * leaves docs/internals/benchmarks.md alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  commit,
  ensureBuild,
  envInteger,
  freePort,
  HOST,
  installExitGuards,
  loadAverage,
  machine,
  percentile,
  requestJson,
  runBench,
  type Store,
  sandbankLaunch,
  scratchDatabases,
  sleep,
  spawnChild,
  waitForReady,
  withChild,
  writeBenchmarksSection,
} from './harness.ts';

const WARMUP_S = 2;
/** How long after a phase the victim's missing webhooks are waited for. */
const WEBHOOK_GRACE_MS = 10_000;
const VICTIM_TIMEOUT_MS = 60_000;
const ABUSE_TIMEOUT_MS = 120_000;
const CLOCK_ABUSE_DELAY_MS = 1_000;
const SETUP_CONCURRENCY = 16;
const GRAPHQL_IN_FLIGHT = 2;
const GRAPHQL_ALIASES = 15;
const GRAPHQL_IDS_PER_ALIAS = 100;
const BLACK_HOLE_ENDPOINTS = 16;

const TARGET_P99_RATIO = 3;
const TARGET_P99_FLOOR_MS = 150;
const TARGET_MAX_MS = 1_000;
const TARGET_WEBHOOK_MS = 2_000;

const COLLECT_BODY = { amount: '12.50', currency: 'USD', email: 'victim@example.com' };
const ABUSER_COLLECT_BODY = { amount: '1.00', currency: 'USD' };

const ABUSES = ['graphql', 'clock', 'webhooks'] as const;
type Abuse = (typeof ABUSES)[number];
type Phase = 'baseline' | Abuse;

const PHASE_LABELS: Record<Phase, string> = {
  baseline: 'baseline (no abuse)',
  graphql: `GraphQL: ${GRAPHQL_IN_FLIGHT} × ${GRAPHQL_ALIASES} aliases × nodes(ids:) of ${GRAPHQL_IDS_PER_ALIAS}`,
  clock: 'clock advance over due jobs',
  webhooks: `${BLACK_HOLE_ENDPOINTS} webhook endpoints at a black hole`,
};

interface Settings {
  seconds: number;
  jobs: number;
  eventsPerSecond: number;
  abuses: Abuse[];
}

function readSettings(): Settings {
  const raw = process.env.BENCH_FAIRNESS_PHASES?.trim();
  const abuses = raw ? raw.split(',').map((p) => p.trim()) : [...ABUSES];
  for (const abuse of abuses) {
    if (!(ABUSES as readonly string[]).includes(abuse)) {
      throw new Error(`BENCH_FAIRNESS_PHASES: "${abuse}" is not one of ${ABUSES.join(', ')}.`);
    }
  }
  return {
    seconds: envInteger('BENCH_FAIRNESS_SECONDS', 12, 1, 600),
    jobs: envInteger('BENCH_FAIRNESS_JOBS', 2000, 1, 100_000),
    eventsPerSecond: envInteger('BENCH_FAIRNESS_EVENTS_PER_S', 20, 1, 1000),
    abuses: abuses as Abuse[],
  };
}

// ---------------------------------------------------------------------------------------------
// Receivers on 127.0.0.1: the victim's (answers 200 at once) and the black hole (never answers).

/** When each collection's `collection.created` webhook arrived (performance.now()), by collection id. */
const webhookArrivals = new Map<string, number>();

async function startVictimReceiver(): Promise<{ server: Server; url: string }> {
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = performance.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          data?: { object?: { id?: string } };
        };
        const id = event.data?.object?.id;
        if (id && !webhookArrivals.has(id)) webhookArrivals.set(id, arrived);
      } catch {
        // Not an event: answered all the same.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  server.listen(port, HOST);
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://${HOST}:${port}/webhooks` };
}

interface BlackHole {
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/** A TCP server that accepts every connection and never sends a byte. */
async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await freePort();
  server.listen(port, HOST);
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://${HOST}:${port}/webhooks`,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The server's API.

class Api {
  constructor(
    readonly port: number,
    /** One agent per client: the victim's keeps its one connection. */
    readonly agent: Agent = new Agent({ keepAlive: true, maxSockets: SETUP_CONCURRENCY }),
  ) {}

  request(method: string, path: string, key: string | null, body?: unknown, timeoutMs = ABUSE_TIMEOUT_MS) {
    return requestJson(this.agent, this.port, method, path, key, body, timeoutMs);
  }

  /** The answer's body; anything but a 2xx is an error naming the call. */
  async must(method: string, path: string, key: string | null, body?: unknown) {
    const reply = await this.request(method, path, key, body);
    if (reply.status < 200 || reply.status >= 300) {
      throw new Error(`${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  }

  /** A new merchant (keyless sign-up): its secret key. */
  async signUp(name: string): Promise<string> {
    return String((await this.must('POST', '/v1/merchants', null, { name })).secret_key);
  }

  withAgent(agent: Agent): Api {
    return new Api(this.port, agent);
  }
}

// ---------------------------------------------------------------------------------------------
// The victim.

interface VictimRun {
  /** Every request's time to its answer or failure, ms. */
  latencies: number[];
  /** Non-2xx answers and failed requests. */
  bad: number;
  /** When each create was answered (performance.now()), by collection id. */
  creates: Map<string, number>;
}

async function victimLoop(api: Api, key: string, seconds: number): Promise<VictimRun> {
  const run: VictimRun = { latencies: [], bad: 0, creates: new Map() };
  const timed = async (method: string, path: string, body?: unknown) => {
    const started = performance.now();
    try {
      const reply = await api.request(method, path, key, body, VICTIM_TIMEOUT_MS);
      run.latencies.push(performance.now() - started);
      if (reply.status < 200 || reply.status >= 300) run.bad++;
      return reply;
    } catch {
      run.latencies.push(performance.now() - started);
      run.bad++;
      return null;
    }
  };
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const created = await timed('POST', '/v1/collect', COLLECT_BODY);
    const id = created && created.status >= 200 && created.status < 300 ? String(created.body.id) : null;
    if (id === null) continue;
    run.creates.set(id, performance.now());
    await timed('GET', `/v1/collections/${id}`);
  }
  return run;
}

interface Webhooks {
  expected: number;
  missing: number;
  /** Create's answer → arrival, ms; Infinity when a webhook had not arrived WEBHOOK_GRACE_MS after the phase. */
  p50: number;
  p99: number;
  max: number;
}

/** Waits (up to WEBHOOK_GRACE_MS) for the webhooks of the run's creates, then times them. */
async function victimWebhooks(run: VictimRun): Promise<Webhooks> {
  const deadline = performance.now() + WEBHOOK_GRACE_MS;
  const missing = () => [...run.creates.keys()].filter((id) => !webhookArrivals.has(id)).length;
  while (missing() > 0 && performance.now() < deadline) await sleep(100);
  const delays = [...run.creates]
    .map(([id, answered]) => {
      const arrived = webhookArrivals.get(id);
      return arrived === undefined ? Number.POSITIVE_INFINITY : Math.max(0, arrived - answered);
    })
    .sort((a, b) => a - b);
  return {
    expected: run.creates.size,
    missing: missing(),
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    max: delays.at(-1) ?? Number.NaN,
  };
}

// ---------------------------------------------------------------------------------------------
// The abuses. Each prepares before the phase, runs while the victim's loop runs, and says what it did.

interface Running {
  /** Stops the abuse, waits for its requests in flight, and describes what it did. */
  stop(): Promise<string>;
}

interface AbuseContext {
  api: Api;
  settings: Settings;
  blackHole: BlackHole;
}

/** Runs `count` calls of `make`, at most SETUP_CONCURRENCY at a time. */
async function inParallel(count: number, make: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await make(next++);
  };
  await Promise.all(Array.from({ length: Math.min(SETUP_CONCURRENCY, count) }, worker));
}

/** Tally of an abuser's answers: "200 ×12, error ×1". */
class Statuses {
  private readonly counts = new Map<string, number>();
  add(status: number | 'error'): void {
    const label = String(status);
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }
  toString(): string {
    return [...this.counts].map(([status, n]) => `${status} ×${n}`).join(', ') || 'none';
  }
}

/** A made-up id of a real kind: the shape of a collection id that no merchant has. */
function madeUpId(alias: number, index: number): string {
  return `col_01ZZ${String(alias).padStart(2, '0')}${String(index).padStart(20, '0')}`;
}

async function graphqlAbuse({ api }: AbuseContext): Promise<Running> {
  const key = await api.signUp('Fairness GraphQL abuser');
  const variables: Record<string, string[]> = {};
  const declarations: string[] = [];
  const selections: string[] = [];
  for (let a = 0; a < GRAPHQL_ALIASES; a++) {
    variables[`ids${a}`] = Array.from({ length: GRAPHQL_IDS_PER_ALIAS }, (_, i) => madeUpId(a, i));
    declarations.push(`$ids${a}: [ID!]!`);
    selections.push(`n${a}: nodes(ids: $ids${a}) { id }`);
  }
  const body = { query: `query Abuse(${declarations.join(', ')}) { ${selections.join(' ')} }`, variables };
  const abuser = api.withAgent(new Agent({ keepAlive: true, maxSockets: GRAPHQL_IN_FLIGHT }));
  const statuses = new Statuses();
  const durations: number[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        statuses.add((await abuser.request('POST', '/graphql', key, body)).status);
      } catch {
        statuses.add('error');
      }
      durations.push(performance.now() - started);
    }
  };
  const loops = Array.from({ length: GRAPHQL_IN_FLIGHT }, loop);
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      abuser.agent.destroy();
      const sorted = durations.sort((a, b) => a - b);
      return `${sorted.length} requests (${statuses}), p50 ${ms(percentile(sorted, 50))}`;
    },
  };
}

async function clockAbuse({ api, settings }: AbuseContext): Promise<Running> {
  const key = await api.signUp('Fairness clock abuser');
  await inParallel(settings.jobs, () => api.must('POST', '/v1/collect', key, ABUSER_COLLECT_BODY));
  // Every collection expires within a day (the default); the advance passes all of their expiries.
  const advance = (async () => {
    await sleep(CLOCK_ABUSE_DELAY_MS);
    const started = performance.now();
    try {
      const reply = await api.request('POST', '/v1/clock/advance', key, { seconds: 25 * 3600 });
      const ran = Array.isArray(reply.body.ran) ? reply.body.ran.length : 0;
      return `advance ${reply.status} in ${ms(performance.now() - started)}, ${ran} jobs ran`;
    } catch (error) {
      return `advance failed after ${ms(performance.now() - started)}: ${(error as Error).message}`;
    }
  })();
  return { stop: () => advance };
}

async function webhooksAbuse({ api, settings, blackHole }: AbuseContext): Promise<Running> {
  const key = await api.signUp('Fairness webhook abuser');
  for (let i = 0; i < BLACK_HOLE_ENDPOINTS; i++) {
    await api.must('POST', '/v1/webhook_endpoints', key, { url: blackHole.url, enabled_events: ['*'] });
  }
  const acceptedBefore = blackHole.accepted();
  const statuses = new Statuses();
  const intervalMs = 1000 / settings.eventsPerSecond;
  const abuser = api.withAgent(new Agent({ keepAlive: true, maxSockets: 1 }));
  let stopped = false;
  const stream = (async () => {
    const start = performance.now();
    for (let i = 0; !stopped; i++) {
      await sleep(Math.max(0, start + i * intervalMs - performance.now()));
      if (stopped) break;
      try {
        statuses.add((await abuser.request('POST', '/v1/collect', key, ABUSER_COLLECT_BODY)).status);
      } catch {
        statuses.add('error');
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await stream;
      abuser.agent.destroy();
      return `creates ${statuses}; ${blackHole.accepted() - acceptedBefore} connections to the black hole`;
    },
  };
}

const START_ABUSE: Record<Abuse, (context: AbuseContext) => Promise<Running>> = {
  graphql: graphqlAbuse,
  clock: clockAbuse,
  webhooks: webhooksAbuse,
};

// ---------------------------------------------------------------------------------------------
// One store.

interface PhaseResult {
  phase: Phase;
  requests: number;
  bad: number;
  p50: number;
  p99: number;
  max: number;
  webhooks: Webhooks;
  abuse: string;
  loadStart: number;
  loadEnd: number;
}

interface StoreResult {
  store: string;
  phases: PhaseResult[];
}

/** Prepares the phase's abuse, runs it beside the victim's loop, stops it, then waits for the victim's webhooks. */
async function runPhase(
  phase: Phase,
  victim: Api,
  victimKey: string,
  context: AbuseContext,
): Promise<PhaseResult> {
  const running = phase === 'baseline' ? null : await START_ABUSE[phase](context);
  const loadStart = os.loadavg()[0] as number;
  const run = await victimLoop(victim, victimKey, context.settings.seconds);
  const abuse = running ? await running.stop() : '–';
  const loadEnd = os.loadavg()[0] as number;
  const webhooks = await victimWebhooks(run);
  const sorted = run.latencies.sort((a, b) => a - b);
  const result: PhaseResult = {
    phase,
    requests: sorted.length,
    bad: run.bad,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    webhooks,
    abuse,
    loadStart,
    loadEnd,
  };
  console.log(
    `  ${phase}: ${result.requests} requests (${result.bad} bad), p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, ` +
      `max ${ms(result.max)}; webhooks p50 ${ms(webhooks.p50)}, max ${ms(webhooks.max)}, ` +
      `${webhooks.missing} of ${webhooks.expected} missing; abuse: ${abuse}`,
  );
  return result;
}

async function runStore(
  name: string,
  store: Store,
  settings: Settings,
  receiverUrl: string,
  blackHole: BlackHole,
): Promise<StoreResult> {
  console.log(`\n[${name}] node dist/main.js`);
  const port = await freePort();
  const launch = sandbankLaunch(port, store);
  return withChild(
    () => spawnChild(launch.name, launch.args, launch.env),
    async (child) => {
      await waitForReady(child, `http://${HOST}:${port}/readyz`);
      const api = new Api(port);
      const victim = api.withAgent(new Agent({ keepAlive: true, maxSockets: 1 }));
      const victimKey = await api.signUp('Fairness victim');
      await api.must('POST', '/v1/webhook_endpoints', victimKey, {
        url: receiverUrl,
        enabled_events: ['collection.created'],
      });
      await victimLoop(victim, victimKey, WARMUP_S);
      const context: AbuseContext = { api, settings, blackHole };
      const phases: PhaseResult[] = [];
      for (const phase of ['baseline', ...settings.abuses] as Phase[]) {
        phases.push(await runPhase(phase, victim, victimKey, context));
      }
      victim.agent.destroy();
      api.agent.destroy();
      return { store: name, phases };
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Report.

function ms(value: number): string {
  if (Number.isNaN(value)) return '–';
  if (value === Number.POSITIVE_INFINITY) return `> ${WEBHOOK_GRACE_MS / 1000} s`;
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`;
}

interface Check {
  store: string;
  phase: Phase;
  target: string;
  measured: string;
  pass: boolean;
}

function checks(result: StoreResult): Check[] {
  const baseline = result.phases.find((p) => p.phase === 'baseline');
  if (!baseline) return [];
  const p99Limit = Math.max(TARGET_P99_RATIO * baseline.p99, TARGET_P99_FLOOR_MS);
  const list: Check[] = [];
  for (const p of result.phases) {
    if (p.phase === 'baseline') continue;
    const add = (target: string, measured: string, pass: boolean) =>
      list.push({ store: result.store, phase: p.phase, target, measured, pass });
    add(
      `p99 ≤ ${TARGET_P99_RATIO}× baseline (${ms(baseline.p99)}) or ≤ ${TARGET_P99_FLOOR_MS} ms`,
      ms(p.p99),
      p.p99 <= p99Limit,
    );
    add(`longest request ≤ ${ms(TARGET_MAX_MS)}`, ms(p.max), p.max <= TARGET_MAX_MS);
    const w = p.webhooks;
    add(
      `every webhook within ${ms(TARGET_WEBHOOK_MS)}`,
      w.missing > 0 ? `${w.missing} of ${w.expected} not arrived` : `max ${ms(w.max)}`,
      w.expected > 0 && w.max <= TARGET_WEBHOOK_MS,
    );
  }
  return list;
}

function figuresTable(results: StoreResult[]): string {
  const lines = [
    '| store | phase | victim requests (bad) | p50 | p99 | max | webhook p50 / p99 / max | webhooks not arrived | load (1 min) start → end | the abuser |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    for (const p of r.phases) {
      const w = p.webhooks;
      lines.push(
        `| ${r.store} | ${PHASE_LABELS[p.phase]} | ${p.requests} (${p.bad}) | ${ms(p.p50)} | ${ms(p.p99)} | ` +
          `${ms(p.max)} | ${ms(w.p50)} / ${ms(w.p99)} / ${ms(w.max)} | ${w.missing} of ${w.expected} | ` +
          `${p.loadStart.toFixed(2)} → ${p.loadEnd.toFixed(2)} | ${p.abuse} |`,
      );
    }
  }
  return lines.join('\n');
}

function checksTable(list: Check[]): string {
  const lines = ['| store | abuse | target | measured | |', '|---|---|---|---|---|'];
  for (const c of list) {
    lines.push(`| ${c.store} | ${c.phase} | ${c.target} | ${c.measured} | ${c.pass ? 'PASS' : '**FAIL**'} |`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  installExitGuards();
  const settings = readSettings();
  const postgresUrl = process.env.BENCH_POSTGRES_URL?.trim() || undefined;
  ensureBuild();
  if (!postgresUrl) console.log('BENCH_POSTGRES_URL is not set: Sandbank on Postgres is skipped.');
  console.log(
    `Fairness: ${settings.seconds} s per phase (${['baseline', ...settings.abuses].join(', ')}); ` +
      `${settings.jobs} due jobs; ${settings.eventsPerSecond} events/s to ${BLACK_HOLE_ENDPOINTS} black-holed endpoints.`,
  );
  const loadBefore = loadAverage();
  const startedAt = new Date();
  const receiver = await startVictimReceiver();
  const blackHole = await startBlackHole();
  const results: StoreResult[] = [];
  try {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbank-fairness-'));
    try {
      results.push(await runStore('PGlite', { dataDir }, settings, receiver.url, blackHole));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    if (postgresUrl) {
      const databases = scratchDatabases(postgresUrl, 'sandbank_fairness');
      try {
        const databaseUrl = await databases.create();
        results.push(await runStore('Postgres', { databaseUrl }, settings, receiver.url, blackHole));
      } finally {
        await databases.dropAll();
      }
    }
  } finally {
    receiver.server.closeAllConnections();
    receiver.server.close();
    await blackHole.close();
  }
  const loadAfter = loadAverage();

  const figures = figuresTable(results);
  const verdicts = checksTable(results.flatMap(checks));
  console.log(`\n${figures}\n\n${verdicts}\n`);
  console.log(
    `Machine: ${machine()}; load average (1/5/15 min) at the start ${loadBefore}, at the end ${loadAfter}`,
  );

  if (process.env.BENCH_WRITE !== '0') {
    const marker = '<!-- fairness run -->';
    const section = [
      marker,
      '### The recorded fairness run',
      '',
      `Commit ${commit()}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; ` +
        `load average (1/5/15 min) ${loadBefore} at the start and ${loadAfter} at the end. ` +
        `${settings.seconds} s per phase after ${WARMUP_S} s of warm-up; ${settings.jobs} due jobs; ` +
        `${settings.eventsPerSecond} events/s to the black-holed endpoints.`,
      '',
      figures,
      '',
      verdicts,
      '',
    ].join('\n');
    const doc = writeBenchmarksSection(marker, '<!-- end of fairness run -->', section);
    console.log(`Wrote ${doc}.`);
  }
}

runBench(main);
