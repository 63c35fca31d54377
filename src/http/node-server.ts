import type { Server } from 'node:http';
import { serve } from '@hono/node-server';

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) races every client that
 * reuses a connection after about five idle seconds: the server closes it just as the client sends
 * on it, and the client sees ECONNRESET or "socket hang up" for a request that never arrived. A
 * test suite pauses that long all the time (a slow step, a busy machine). Clients that honour the
 * `Keep-Alive: timeout=65` header the server sends close their side first; others are safe for a
 * minute of idleness. The value is above the usual idle timeouts of load balancers (60 s), so that
 * a balancer in front closes first as well.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Node wants the headers timeout above the keep-alive one, or it can cut a reused connection's next request. */
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;

/** The connection settings of every Sandbank HTTP server (the server's, and the tests' loopback ones). */
export function applyConnectionSettings(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
}

/** An app on a Node HTTP server on `host:port`, with the connection settings above. */
export function serveOn(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
  listening: () => void,
): Server {
  const server = serve({ fetch, hostname: host, port }, listening) as Server;
  applyConnectionSettings(server);
  return server;
}
