import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AppDeps } from '../deps.ts';
import { systemClock } from '../kernel/clock.ts';
import { SandbankError } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import { sessionFor, sessionTokenOf } from '../modules/dashboard/dashboard.service.ts';
import { authenticate, type Principal, requireSecretKey } from '../modules/merchants/merchants.service.ts';
import { MAX_BODY_BYTES } from '../rest/middleware/json-body.ts';
import type { buildYoga } from './yoga.ts';

export const GRAPHQL_WS_PATH = '/graphql';

/** A close reason is at most 123 bytes of UTF-8. */
function closeReason(error: SandbankError): string {
  const reason = `${error.code}: ${error.message}`;
  return Buffer.byteLength(reason) <= 123 ? reason : error.code;
}

function authorizationOf(params: Record<string, unknown> | undefined): string | null {
  const value = params?.authorization ?? params?.Authorization;
  return typeof value === 'string' ? value : null;
}

function refuseUpgrade(socket: Duplex, status: 404 | 503): void {
  const text = status === 404 ? 'Not Found' : 'Service Unavailable';
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

type EnvelopedArgs = ExecutionArgs & {
  rootValue: { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown };
};

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol of graphql-ws) on the HTTP server's
 * port at /graphql, executed by the same Yoga envelop as HTTP (same schema, abuse limits, error
 * masking). The connection authenticates with connectionParams.authorization ("Bearer sk_test_..."),
 * or, from a dashboard page, with the browser's session cookie
 * on connect and again for each operation: a missing, invalid or revoked key closes it with 4401, a
 * public key with 4403.
 */
export function attachGraphQLWebSocket(
  server: Server,
  {
    yoga,
    deps,
    closeTimeoutMs = 5_000,
  }: { yoga: ReturnType<typeof buildYoga>; deps: AppDeps; closeTimeoutMs?: number },
) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  let closing = false;

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    if (pathname !== GRAPHQL_WS_PATH) return refuseUpgrade(socket, 404);
    if (closing) return refuseUpgrade(socket, 503);
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);

  /**
   * A dashboard page's connection: no key in connectionParams, the browser's session cookie on the
   * upgrade request, from a page of this server (the Origin must be this host: another site's page
   * cannot ride the cookie).
   */
  async function dashboardPrincipal(request: IncomingMessage): Promise<Principal | null> {
    const token = sessionTokenOf(request.headers.cookie);
    const origin = request.headers.origin;
    if (!token || !origin) return null;
    const host = request.headers.host;
    const allowed = [new URL(deps.publicUrl).origin, `http://${host}`, `https://${host}`];
    if (!allowed.includes(origin)) return null;
    const session = await sessionFor(deps.database.db, systemClock, token);
    return session ? { merchant: session.merchant, keyKind: 'secret' } : null;
  }

  /** The connection's principal, or null after closing it (4401 missing/invalid key, 4403 public key). */
  async function authorize(
    socket: WebSocket,
    authorization: string | null,
    request: IncomingMessage,
  ): Promise<Principal | null> {
    try {
      if (authorization === null) {
        const viaSession = await dashboardPrincipal(request);
        if (viaSession) return viaSession;
      }
      const principal = await authenticate(deps.database.db, authorization);
      requireSecretKey(principal);
      return principal;
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      socket.close(error.status === 403 ? CloseCode.Forbidden : CloseCode.Unauthorized, closeReason(error));
      return null;
    }
  }

  useServer<Record<string, unknown>>(
    {
      isProd: true, // internal errors never reach a close reason
      onConnect: async (ctx) =>
        (await authorize(ctx.extra.socket, authorizationOf(ctx.connectionParams), ctx.extra.request)) !==
        null,
      onSubscribe: async (ctx, _id, payload) => {
        // Checked again per operation (the key cache makes it cheap): a revoked key stops here.
        const principal = await authorize(
          ctx.extra.socket,
          authorizationOf(ctx.connectionParams),
          ctx.extra.request,
        );
        if (!principal) return [new GraphQLError('The API key is no longer valid.')];
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          deps,
          requestId: newId('request'),
          principal,
          params: payload,
        });
        let document: ExecutionArgs['document'];
        try {
          document = parse(payload.query);
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        const args: EnvelopedArgs = {
          schema,
          operationName: payload.operationName ?? null,
          document,
          variableValues: payload.variables ?? null,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        return args;
      },
      execute: (args) => (args as EnvelopedArgs).rootValue.execute(args) as never,
      subscribe: (args) => (args as EnvelopedArgs).rootValue.subscribe(args) as never,
    },
    wss,
  );

  return {
    /** Refuses new connections, closes open ones (1001 Going away, then terminates stragglers). */
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      const sockets = [...wss.clients];
      await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === socket.CLOSED) return resolve();
              const timer = setTimeout(() => socket.terminate(), closeTimeoutMs);
              socket.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              socket.close(1001, 'Going away');
            }),
        ),
      );
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
