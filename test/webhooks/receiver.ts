import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

/** A real HTTP receiver on loopback whose answer the test sets (200 by default). */
export class Receiver {
  readonly received: Received[] = [];
  status = 200;
  headers: Record<string, string> = {};
  /** The response body (default `status <code>`). */
  body: string | null = null;
  /** How long (real ms) the receiver holds each request before it answers. */
  delayMs = 0;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          path: req.url ?? '',
        });
        const answer = () => {
          res.writeHead(this.status, { 'content-type': 'text/plain', ...this.headers });
          res.end(this.body ?? `status ${this.status}`);
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** Events received, parsed. */
  types(): string[] {
    return this.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** The headers as a plain string map, as verifiers take them. */
export function headerMap(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
  );
}
