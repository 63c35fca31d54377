/** What the benchmarks share: child processes that never outlive the script, ports, readiness. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

export const HOST = '127.0.0.1';

/** A bare node:http server: reads the body, answers a fixed small JSON document. */
export const CEILING_SERVER_CODE = `
const http = require('node:http');
const body = Buffer.from('{"status":"success"}');
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
http
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, headers);
      res.end(body);
    });
  })
  .listen(Number(process.env.PORT), process.env.HOST);
`;

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SECRET_KEY = 'sk_test_bench0000000000000000000000000000';
const PUBLIC_KEY = 'pk_test_bench0000000000000000000000000000';
const READY_POLL_MS = 100;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const OUTPUT_TAIL_CHARS = 16_000;
const DEFAULT_DURATION_S = 10;
const MAX_DURATION_S = 3600;

export interface ManagedChild {
  name: string;
  process: ChildProcess;
  /** The last characters the child wrote (stdout and stderr, interleaved). */
  output(): string;
}

// ---------------------------------------------------------------------------------------------
// Child processes: every spawned child is tracked so nothing outlives the script.

const liveChildren = new Set<ChildProcess>();

function killAllChildrenNow(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
}

export function installExitGuards(): void {
  process.on('exit', killAllChildrenNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping children.`);
      killAllChildrenNow();
      process.exit(130);
    });
  }
}

function captureTail(child: ChildProcess): () => string {
  let tail = '';
  const append = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => tail;
}

export function spawnChild(name: string, args: string[], env: NodeJS.ProcessEnv): ManagedChild {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  const output = captureTail(child);
  return { name, process: child, output };
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return true;
  const timeout = sleep(timeoutMs).then(() => false);
  const exited = once(child, 'exit').then(() => true);
  return Promise.race([exited, timeout]);
}

/** SIGTERM, wait up to 15 s, then SIGKILL. */
export async function stopChild(managed: ManagedChild): Promise<void> {
  const child = managed.process;
  if (hasExited(child)) return;
  child.kill('SIGTERM');
  if (await waitForExit(child, STOP_TIMEOUT_MS)) {
    if (child.exitCode !== null && child.exitCode !== 0) {
      console.warn(`  ${managed.name} exited with code ${child.exitCode} after SIGTERM.`);
    }
    return;
  }
  console.warn(`  ${managed.name} did not exit ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; sending SIGKILL.`);
  child.kill('SIGKILL');
  await waitForExit(child, STOP_TIMEOUT_MS);
}

/** Runs `body` with a started child and always stops the child afterwards. */
export async function withChild<T>(
  start: () => ManagedChild,
  body: (child: ManagedChild) => Promise<T>,
): Promise<T> {
  const child = start();
  try {
    return await body(child);
  } finally {
    await stopChild(child);
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, HOST);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('Could not read a free port.');
  return address.port;
}

export function readDurationSeconds(): number {
  const raw = process.env.BENCH_DURATION?.trim();
  if (!raw) return DEFAULT_DURATION_S;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DURATION_S) {
    throw new Error(
      `BENCH_DURATION must be a whole number of seconds from 1 to ${MAX_DURATION_S}, got "${raw}".`,
    );
  }
  if (seconds < DEFAULT_DURATION_S) {
    console.warn(`BENCH_DURATION=${seconds} is below ${DEFAULT_DURATION_S} s: numbers are indicative only.`);
  }
  return seconds;
}

/** Status of one GET, or null when the request failed (connection refused, timeout). */
export async function getStatus(url: string, headers: Record<string, string> = {}): Promise<number | null> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return null;
  }
}

/** Polls `url` every 100 ms until it answers 200; fails fast if the child exits. */
export async function waitForReady(managed: ManagedChild, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(managed.process)) {
      const { exitCode, signalCode } = managed.process;
      throw new Error(
        `${managed.name} exited (code ${exitCode}, signal ${signalCode}) before ${url} answered 200.\n` +
          `--- child output ---\n${managed.output()}`,
      );
    }
    if ((await getStatus(url)) === 200) return;
    await sleep(READY_POLL_MS);
  }
  throw new Error(
    `${managed.name}: ${url} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s.\n` +
      `--- child output ---\n${managed.output()}`,
  );
}

/** A whole number from the environment, `fallback` when unset; anything outside [min, max] is an error. */
export function envInteger(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  }
  return n;
}

export interface JsonReply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * One JSON request on `agent` to 127.0.0.1:`port`, with the secret key when given. Resolves with
 * the status and the parsed body (`{text}` when it is not JSON); rejects on a connection error or
 * after `timeoutMs` without an answer.
 */
export function requestJson(
  agent: Agent,
  port: number | string,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
  timeoutMs = 60_000,
): Promise<JsonReply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: HOST, port, method, path, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = { text };
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Nearest-rank percentile of ascending `sorted` (0 when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export function sandbankEnv(port: number, databaseUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST,
    SANDBANK_SECRET_KEY: SECRET_KEY,
    SANDBANK_PUBLIC_KEY: PUBLIC_KEY,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    // The Stripe dialect's port only where a case measures it (stripeLaunch in record.bench.ts).
    STRIPE_PORT: 'off',
  };
  delete env.DATABASE_URL;
  if (databaseUrl !== undefined) env.DATABASE_URL = databaseUrl;
  return env;
}

export interface Launch {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Where the built server keeps its data: a PGlite folder, PGlite in memory, or a Postgres database. */
export type Store = { dataDir: string } | { memory: true } | { databaseUrl: string };

/** The built server (`node dist/main.js`) on `port`, with the bench keys and room for signups. */
export function sandbankLaunch(port: number, store: Store): Launch {
  const env = sandbankEnv(port, 'databaseUrl' in store ? store.databaseUrl : undefined);
  env.SIGNUPS_PER_MINUTE = '1000';
  if ('dataDir' in store) env.SANDBANK_DATA_DIR = store.dataDir;
  const args = [join(REPO_ROOT, 'dist/main.js'), ...('memory' in store ? ['--memory'] : [])];
  return { name: 'sandbank', args, env };
}

/** Rebuilds dist/ when it is older than the sources, so the bench measures today's code. */
export function ensureBuild(): void {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
}

/**
 * Databases of the bench's own on the Postgres server of `adminUrl` (named `<prefix>_<pid>_<n>`):
 * `create` makes one and answers its URL, `dropAll` drops every one made (connections forced out).
 */
export function scratchDatabases(adminUrl: string, prefix: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const created: string[] = [];
  return {
    async create(): Promise<string> {
      const name = `${prefix}_${process.pid}_${created.length}`;
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
      await admin.unsafe(`CREATE DATABASE ${name}`);
      created.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async dropAll(): Promise<void> {
      try {
        for (const name of created) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reports.

/** The commit measured, with a note when src/, migrations/ or scripts/ have uncommitted changes. */
export function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'migrations', 'scripts'], {
      cwd: REPO_ROOT,
    })
      .toString()
      .trim();
    return dirty ? `${sha} with uncommitted changes` : sha;
  } catch {
    return 'unknown';
  }
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** os.loadavg() as "1 / 5 / 15" minutes. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
}

/**
 * Replaces what lies between `marker` and `endMarker` in docs/internals/benchmarks.md with `section` (which
 * starts with `marker`), leaves the rest of the file as it is, and formats it as `npm run lint` wants.
 */
export function writeBenchmarksSection(marker: string, endMarker: string, section: string): string {
  const doc = join(REPO_ROOT, 'docs/internals/benchmarks.md');
  const current = readFileSync(doc, 'utf8');
  const from = current.indexOf(marker);
  const to = current.indexOf(endMarker);
  if (from < 0 || to < from) throw new Error(`${doc} lacks the ${marker} … ${endMarker} section.`);
  writeFileSync(doc, `${current.slice(0, from)}${section}${current.slice(to)}`);
  // The project's formatter pads Markdown tables.
  execFileSync(
    process.execPath,
    [join(REPO_ROOT, 'scripts/extras.mjs'), 'run', 'tools', 'biome', 'format', '--write', doc],
    {
      stdio: 'ignore',
    },
  );
  return doc;
}

/** Runs a benchmark's main: exit 0 when it completes, 1 with the reason when it is aborted. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('\nBenchmark aborted:', error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
