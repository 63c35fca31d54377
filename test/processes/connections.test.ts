import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS } from '../../src/http/node-server.ts';
import { type Sandbank, startSandbank } from '../../src/testing.ts';

/**
 * Keep-alive connections outlive a client's ordinary pauses. With Node's default (the server
 * closing a connection after 5 idle seconds), a client reusing a connection after about five
 * seconds raced the server's close and saw ECONNRESET or "socket hang up" for a request the server
 * never read; on a busy machine test suites pause that long all the time. The server now keeps
 * them for a minute and says so in `Keep-Alive`, which clients such as Node's own agent read to
 * close their side first.
 */
let sandbank: Sandbank;
beforeAll(async () => {
  sandbank = await startSandbank(
    process.env.TEST_DATABASE_URL ? { databaseUrl: process.env.TEST_DATABASE_URL } : {},
  );
});
afterAll(() => sandbank?.close());

function send(agent: Agent, method: string, path: string, body?: string) {
  const url = new URL(path, sandbank.url);
  return new Promise<{ status: number; headers: Record<string, unknown>; local: string }>(
    (resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method,
          agent,
          headers: {
            authorization: `Bearer ${sandbank.secretKey}`,
            ...(body
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
              : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              local: `${req.socket?.localAddress}:${req.socket?.localPort}`,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('keep-alive connections', () => {
  it('are kept for a minute, and the server says so', async () => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThanOrEqual(60_000);
    expect(HEADERS_TIMEOUT_MS).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answers = [
        await send(agent, 'GET', '/v1/balances'),
        // Refused before its body is read (no such route), then a create: the same connection.
        await send(agent, 'POST', '/v1/no-such-route', '{"amount":"1.00"}'),
        await send(agent, 'POST', '/v1/collect', '{"amount":"1.00","currency":"USD"}'),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 404, 200]);
      for (const answer of answers) {
        expect(answer.headers.connection).toBe('keep-alive');
        expect(answer.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
      }
      expect(new Set(answers.map((a) => a.local)).size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
