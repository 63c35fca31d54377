import { Agent, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { buildApp } from '../../../src/app.ts';
import { serveOn } from '../../../src/http/node-server.ts';

export interface RawRequest {
  method: string;
  /** Path and query as sent on the request line (already percent-encoded). */
  path: string;
  headers?: Record<string, string>;
  /** Sent as is; no Content-Type is added for it. */
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * The app on a real socket on loopback, and a client that sends exactly the bytes it is given (no
 * Content-Type added, no body encoding): what a third-party client or a fuzzer puts on the wire.
 */
export async function listenOnLoopback(app: ReturnType<typeof buildApp>) {
  // With the server's own connection settings (src/http/node-server.ts).
  const server = await new Promise<Server>((resolve) => {
    const s = serveOn(app.fetch, '127.0.0.1', 0, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  function send(raw: RawRequest): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...raw.headers };
      if (raw.body !== undefined) headers['content-length'] = Buffer.byteLength(raw.body);
      const req = request(
        { host: '127.0.0.1', port, method: raw.method, path: raw.path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString(),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(raw.body);
    });
  }
  return {
    send,
    async close() {
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
