import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AppDeps } from '../../deps.ts';
import { MAX_BODY_BYTES } from '../../http/body-limit.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { sessionFor, sessionTokenOf } from '../../modules/dashboard/dashboard.service.ts';
import { authenticate, type Principal, requireSecretKey } from '../../modules/merchants/authentication.ts';
import type { Credential, CredentialWatch } from '../../modules/merchants/credential-watch.ts';
import type { LazyYoga } from './lazy.ts';

export const GRAPHQL_WS_PATH = '/graphql';
/** Operations (subscriptions) one graphql-ws connection may run at once. */
export const MAX_OPERATIONS_PER_CONNECTION = 20;

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

/** An authenticated connection: who it is, and what it authenticated with (watched for changes). */
interface Authorized {
  principal: Principal;
  credential: Credential;
}

type EnvelopedArgs = ExecutionArgs & {
  rootValue: { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown };
};

function credentialWatchOf(deps: AppDeps): CredentialWatch {
  if (!deps.credentialWatch) throw new Error('graphql-ws needs the credential watch (deps.credentialWatch).');
  return deps.credentialWatch;
}

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
  { yoga, deps, closeTimeoutMs = 5_000 }: { yoga: LazyYoga; deps: AppDeps; closeTimeoutMs?: number },
) {
  const credentialWatch = credentialWatchOf(deps);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  const publicOrigin = new URL(deps.publicUrl).origin;
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
   * upgrade request, from a page of this server (the Origin must be PUBLIC_URL's: another site's
   * page cannot ride the cookie).
   */
  async function dashboardPrincipal(
    socket: WebSocket,
    request: IncomingMessage,
    epoch: number,
  ): Promise<Authorized | null> {
    const token = sessionTokenOf(request.headers.cookie);
    const origin = request.headers.origin;
    // PUBLIC_URL's origin only: the Host header is the client's to choose, so it proves nothing.
    if (!token || origin !== publicOrigin) return null;
    const session = await sessionFor(deps.database.db, systemClock, token);
    if (!session) return null;
    sessionSockets.add(socket);
    const merchantId = session.merchant.id;
    return {
      principal: { merchant: session.merchant, keyKind: 'secret' },
      credential: { kind: 'session', merchantId, token, expiresAt: session.expiresAt, epoch },
    };
  }

  /**
   * The connection's principal and credential, or null after closing it (4401 missing/invalid key,
   * 4403 public key). The first success watches the credential: when it stops authenticating (a
   * key roll, a sign-out, an expired session; credential-watch.ts) the connection closes with 4401.
   */
  async function authorize(
    socket: WebSocket,
    authorization: string | null,
    request: IncomingMessage,
  ): Promise<Authorized | null> {
    // Read before the check: a credential change heard meanwhile makes the watch check again.
    const epoch = credentialWatch.epoch;
    try {
      if (authorization === null) {
        const viaSession = await dashboardPrincipal(socket, request, epoch);
        if (viaSession) return watch(socket, viaSession);
        if (sessionSockets.has(socket))
          throw new SandbankError('api_key_invalid', { message: 'The dashboard session has ended.' });
      }
      const principal = await authenticate(deps.database.db, authorization);
      requireSecretKey(principal);
      const merchantId = principal.merchant.id;
      return watch(socket, {
        principal,
        credential: { kind: 'key', merchantId, authorization: authorization ?? '', epoch },
      });
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      socket.close(error.status === 403 ? CloseCode.Forbidden : CloseCode.Unauthorized, closeReason(error));
      return null;
    }
  }

  function watch(socket: WebSocket, authorized: Authorized): Authorized {
    // Once per connection, and only while it is open ('close' then stops the watching).
    if (watched.has(socket) || socket.readyState !== socket.OPEN) return authorized;
    watched.add(socket);
    const unwatch = credentialWatch.watch(authorized.credential, (error) => {
      if (socket.readyState === socket.OPEN) socket.close(CloseCode.Unauthorized, closeReason(error));
    });
    socket.once('close', unwatch);
    return authorized;
  }

  /** Connections whose credential is watched (from their first successful authorization). */
  const watched = new WeakSet<WebSocket>();
  /** Connections opened by a dashboard session (an ended session is said so on the next operation). */
  const sessionSockets = new WeakSet<WebSocket>();

  useServer<Record<string, unknown>>(
    {
      isProd: true, // internal errors never reach a close reason
      onConnect: async (ctx) => {
        const authorization = authorizationOf(ctx.connectionParams);
        return (await authorize(ctx.extra.socket, authorization, ctx.extra.request)) !== null;
      },
      onSubscribe: async (ctx, _id, payload) => {
        // Checked again per operation (the key cache makes it cheap): a revoked key stops here.
        const authorized = await authorize(
          ctx.extra.socket,
          authorizationOf(ctx.connectionParams),
          ctx.extra.request,
        );
        if (!authorized) return [new GraphQLError('The API key is no longer valid.')];
        const { principal, credential } = authorized;
        // The operation being subscribed is already among the connection's (graphql-ws adds it first).
        if (Object.keys(ctx.subscriptions).length > MAX_OPERATIONS_PER_CONNECTION) {
          const error = new SandbankError('limit_exceeded', {
            message: `A connection carries at most ${MAX_OPERATIONS_PER_CONNECTION} operations at once; complete one first.`,
          });
          return [
            new GraphQLError(error.message, { extensions: { code: error.code, status: error.status } }),
          ];
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = (await yoga()).getEnveloped({
          deps,
          requestId: newId('request'),
          principal,
          credential,
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
