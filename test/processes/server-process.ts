import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Children still running when the test process exits (a timed-out test) are killed, never left behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `npm start`'s command (node --import tsx src/main.ts) as a child process on a free
 * loopback port and waits for /readyz. PGlite in memory unless `args`/`env` say otherwise; the
 * suite's TEST_DATABASE_URL is passed as DATABASE_URL when `postgres` is true.
 */
export async function startServerProcess(
  options: {
    args?: string[];
    env?: Record<string, string>;
    postgres?: boolean;
    cwd?: string;
    /** The port to listen on (a restart on the port a client knows); default: a free one. */
    port?: number;
  } = {},
): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  // No background worker or maintenance unless a test asks for one: on a shared Postgres they would
  // also do the due work (webhook deliveries) and the retention of other test files' merchants.
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SCHEDULER_INTERVAL_MS: '0',
    // The address tests (and their browsers) use, so the links the server hands out lead back to it.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    MAINTENANCE_INTERVAL_MS: '0',
    // The Stripe dialect's port only where a test asks for it (12111 is one port for every file).
    STRIPE_PORT: 'off',
  };
  delete env.DATABASE_URL;
  if (options.postgres && process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  Object.assign(env, options.env);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'main.ts'), ...(options.args ?? [])],
    {
      cwd: options.cwd ?? ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    port,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** A JSON call to a server process with a key (or none), answered as its status and parsed body. */
export async function call(
  server: ServerProcess,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
