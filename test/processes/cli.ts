/**
 * What the CLI's end-to-end tests share: a real server process (with the suite's Postgres when
 * there is one), the CLI run as a user would, and merchants of their own on that server.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT, type ServerProcess, startServerProcess } from './server-process.ts';

const run = promisify(execFile);

/** Runs the CLI as a user would (bin/sandbank.js), without the caller's SANDBANK_SECRET_KEY; resolves with its exit code and output. */
export async function sandbank(args: string[], env: Record<string, string> = {}) {
  const environment: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete environment.SANDBANK_SECRET_KEY;
  Object.assign(environment, env);
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'bin', 'sandbank.js'), ...args], {
      cwd: ROOT,
      env: environment,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

export interface CliServer {
  /** The server's base URL (once the file's beforeAll has run). */
  readonly url: string;
  /** A merchant of its own (the sandbox sign-up), so that the shared Postgres's others are never touched; its secret key. */
  signUp(name: string): Promise<string>;
  /** A REST call as `key`'s merchant (a JSON body when one is given). */
  call(
    key: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

/** Starts a server process before the file's tests (in-memory, or the suite's Postgres) and stops it after. */
export function useCliServer(): CliServer {
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    server = await startServerProcess({ args: ['--memory'], postgres: true });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const url = () => {
    if (!server) throw new Error('the server process is not started yet');
    return server.url;
  };
  return {
    get url() {
      return url();
    },
    async signUp(name) {
      const response = await fetch(`${url()}/v1/merchants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      expect(response.status).toBe(201);
      return String(((await response.json()) as { secret_key: string }).secret_key);
    },
    async call(key, method, path, body) {
      const response = await fetch(`${url()}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  };
}
