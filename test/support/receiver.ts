import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildRestApp } from '../../src/api/rest/app.ts';
import { buildDocument } from '../../src/api/rest/openapi.ts';
import { type Conformance, conformance } from './conformance.ts';
import { PUBLIC_URL } from './harness.ts';
import { startedReceivers as started } from './receivers-started.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

/**
 * A real HTTP receiver on loopback whose answer the test sets (200 by default). Every delivery it
 * receives is checked against the server's OpenAPI document (its type's `webhooks` entry: the body
 * and the Standard Webhooks headers): a drift fails the running test (after it: per-test-checks.ts),
 * or stop() when it came later.
 */
export class Receiver {
  readonly received: Received[] = [];
  /** What was wrong with the deliveries received since the last check. */
  readonly problems: string[] = [];
  private checker: Conformance | null = null;
  status = 200;
  headers: Record<string, string> = {};
  /** The response body (default `status <code>`). */
  body: string | null = null;
  /** How long (real ms) the receiver holds each request before it answers. */
  delayMs = 0;
  private server: Server | null = null;
  url = '';

  /** Listens on loopback: on `port` when given (a receiver that comes up late), else any free port. */
  async start(port = 0): Promise<this> {
    this.checker = await conformance(async () => buildDocument(buildRestApp(0), PUBLIC_URL));
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          path: req.url ?? '',
        };
        this.received.push(received);
        this.check(received);
        const answer = () => {
          res.writeHead(this.status, { 'content-type': 'text/plain', ...this.headers });
          res.end(this.body ?? `status ${this.status}`);
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    started.add(this);
    return this;
  }

  private check({ headers, body }: Received): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      this.problems.push(`webhook body is not JSON: ${body.slice(0, 200)}`);
      return;
    }
    for (const problem of this.checker?.checkWebhook(parsed, headers) ?? [])
      this.problems.push(`${problem} (${body.slice(0, 300)})`);
  }

  /** Throws when a delivery received since the last call drifted from the document. */
  assertConforming(): void {
    if (this.problems.length === 0) return;
    const problems = this.problems.splice(0);
    throw new Error(`A webhook delivery does not match the OpenAPI document:\n${problems.join('\n')}`);
  }

  /** Events received, parsed. */
  types(): string[] {
    return this.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    started.delete(this);
    this.assertConforming();
  }
}

/** The headers as a plain string map, as verifiers take them. */
export function headerMap(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
  );
}

/**
 * A real HTTP server on loopback that accepts every request and never answers: each attempt to it
 * hangs until the sender gives up (its timeout) or stop() cuts the connections. It counts the
 * requests hanging now, overall and by path, and the most there ever were at once.
 */
export class BlackHole {
  /** Requests received and not yet given up, by path. */
  readonly open = new Map<string, number>();
  /** The most requests hanging at once, overall and by path. */
  maxOpen = 0;
  readonly maxOpenByPath = new Map<string, number>();
  /** Requests received in all, and requests the sender gave up (connection closed). */
  received = 0;
  ended = 0;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '';
      this.received++;
      const now = (this.open.get(path) ?? 0) + 1;
      this.open.set(path, now);
      this.maxOpenByPath.set(path, Math.max(this.maxOpenByPath.get(path) ?? 0, now));
      this.maxOpen = Math.max(this.maxOpen, this.hanging);
      req.resume(); // read the body, answer nothing
      res.on('close', () => {
        this.ended++;
        this.open.set(path, (this.open.get(path) ?? 1) - 1);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Requests hanging now. */
  get hanging(): number {
    let n = 0;
    for (const count of this.open.values()) n += count;
    return n;
  }

  /** Refuses new connections and cuts the hanging ones (their attempts fail at once). */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.server?.closeAllConnections();
    await closed;
  }
}

/** Polls `condition` every 10 ms until it holds; fails after `ms` (a bound, not a timing target). */
export async function eventually(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
