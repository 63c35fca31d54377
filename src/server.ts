import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { lazyYoga } from './api/graphql/lazy.ts';
import { attachGraphQLWebSocket } from './api/graphql/ws.ts';
import { buildApp, stripeFetch } from './app.ts';
import type { Config } from './config.ts';
import { type Availability, isDatabaseUnavailable } from './db/availability.ts';
import { type Database, openDatabase } from './db/client.ts';
import { processContextOf } from './deps.ts';
import { serveOn } from './http/node-server.ts';
import { systemClock } from './kernel/clock.ts';
import { WebhookTransport } from './kernel/webhook-transport.ts';
import { startMaintenance } from './maintenance.ts';
import { clockFor, runDueWork } from './modules/clock/clock.service.ts';
import type { ProcessContext } from './modules/context.ts';
import { createSignInLink } from './modules/dashboard/dashboard.service.ts';
import { EventBus } from './modules/events/events.bus.ts';
import { registerModules } from './modules/index.ts';
import { CredentialWatch } from './modules/merchants/credential-watch.ts';
import { type DefaultMerchant, ensureDefaultMerchant } from './modules/merchants/default-merchant.ts';
import { SignupLimiter } from './modules/merchants/signups.ts';
import { flushRequestLog } from './modules/request-log/request-log.writer.ts';
import { DeliveryPump } from './modules/webhooks/webhooks.pump.ts';
import { createMetrics, type Metrics, trackLiveSubscriptions } from './observability.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Where Stripe's clients reach the Stripe dialect (its own port); null when it has none. */
  stripeUrl: string | null;
  database: Database;
  defaultMerchant: DefaultMerchant;
  /** A one-time link that signs a browser in to the default merchant's dashboard (24 h). */
  dashboardSignInUrl: string;
  /** Graceful stop: refuse new connections, finish in-flight requests, close the database. */
  close(): Promise<void>;
}

function listen(app: ReturnType<typeof buildApp>, host: string, port: number) {
  return new Promise<Server>((resolve, reject) => {
    const server = serveOn(app.fetch, host, port, () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} on ${host} is already in use. Stop the other server or set PORT.`)
          : error,
      );
    });
  });
}

/**
 * The Stripe dialect's port: null when STRIPE_PORT=off, or when the default port (12111) is taken —
 * by stripe-mock, say — which is said in a warning; a port STRIPE_PORT names must be free.
 */
async function listenStripe(app: ReturnType<typeof buildApp>, config: Config, logger: Logger) {
  const choice = config.stripePort;
  if (!choice) return null;
  try {
    return await new Promise<Server>((resolve, reject) => {
      const server = serveOn(stripeFetch(app), config.host, choice.port, () => resolve(server));
      server.once('error', reject);
    });
  } catch (error) {
    const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (taken && !choice.explicit) {
      logger.warn(
        `port ${choice.port} is taken: the Stripe dialect is served under /stripe only (set STRIPE_PORT to choose its port)`,
      );
      return null;
    }
    throw taken
      ? new Error(
          `Port ${choice.port} on ${config.host} (STRIPE_PORT) is already in use. Stop the other server or set STRIPE_PORT.`,
        )
      : error;
  }
}

/** In-flight API requests from which the API counts as saturated (webhooks.pump.ts). */
const SATURATED_IN_FLIGHT = 16;

/** How much longer than STARTUP_TIMEOUT_MS opening Postgres keeps trying (one more connection attempt). */
const DEADLINE_MARGIN_MS = 2_000;

/**
 * The background half of the scheduler: work that falls due in real time (by each merchant's
 * clock) runs within SCHEDULER_INTERVAL_MS; webhook deliveries also run as soon as the event that
 * queued them commits. Clock advances run their own work synchronously.
 */
function startDueWorkRunner(
  shared: ProcessContext,
  config: Config,
  logger: Logger,
  metrics: Metrics,
  availability: Availability,
) {
  const pump = new DeliveryPump(shared.db, logger, {
    apiSaturated: () => metrics.inFlight.value >= SATURATED_IN_FLIGHT,
    transport: shared.webhookTransport,
  });
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (!stopped) timer = setTimeout(tick, config.schedulerIntervalMs);
  };
  const tick = () => {
    // While the database is unreachable the turn is skipped (its probe says when it is back, and
    // the outage is logged once, by startServer): no query queued, no error line per turn.
    if (!availability.up) return schedule();
    pump.wake();
    running = runDueWork(shared)
      .then((jobs) => {
        if (jobs > 0) logger.debug({ jobs }, 'ran due jobs');
      })
      .catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) logger.error({ err: error }, 'due work failed');
      })
      .finally(schedule);
  };
  const enabled = config.schedulerIntervalMs > 0;
  let timer = enabled ? setTimeout(tick, config.schedulerIntervalMs) : undefined;
  return {
    /** A committed event has deliveries due now. */
    kick: () => {
      if (enabled && availability.up) pump.wake();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([running, pump.stop()]);
    },
  };
}

/** Opens the database, migrates, bootstraps the default merchant and listens. */
/**
 * A start-up step as a short line for a person watching the terminal (start.ts prints them, so a
 * slow start shows where it is); tests that start a server in-process pass none.
 */
export type StartProgress = (step: string) => void;

export async function startServer(
  config: Config,
  logger: Logger,
  progress: StartProgress = () => {},
): Promise<RunningServer> {
  // The modules' registries (id prefixes, job handlers, …) before anything writes: the default
  // merchant is made before the app is built.
  registerModules();
  const opening = Date.now();
  progress(
    config.database.driver === 'postgres'
      ? 'connecting to PostgreSQL and applying migrations…'
      : 'opening the PGlite database and applying migrations…',
  );
  const relaxedDurability = config.durability === 'relaxed';
  const database = await openDatabase(
    config.database.driver === 'postgres'
      ? {
          driver: 'postgres',
          url: config.database.url,
          relaxedDurability,
          // A little past STARTUP_TIMEOUT_MS: a start that waits is ended by that deadline's clear
          // error (start.ts), never by the last refused connection racing it on a busy machine.
          waitForDatabaseMs: config.startupTimeoutMs + DEADLINE_MARGIN_MS,
        }
      : {
          driver: 'pglite',
          relaxedDurability,
          ...(config.database.dataDir ? { dataDir: config.database.dataDir } : {}),
        },
  );
  let ready = true;
  // An outage is two lines: when the database becomes unreachable, and when it answers again.
  database.availability.onChange(({ up, cause }) => {
    if (up) logger.warn('the database answers again');
    else
      logger.error(
        { err: cause },
        'the database is unreachable: requests that need it answer 503 database_unavailable, background work waits',
      );
  });
  const webhookTransport = new WebhookTransport(
    { blockPrivateNetworks: config.webhookBlockPrivateNetworks, allowedHosts: config.webhookAllowedHosts },
    undefined,
    config.webhookLimits,
  );
  // One LISTEN per process: every instance on a shared Postgres hears every committed event.
  const eventBus = new EventBus(database, logger);
  // And one for credential changes: a key roll or a sign-out ends the live streams it opened.
  const credentialWatch = new CredentialWatch(database, logger);
  try {
    progress(
      `database ready (${((Date.now() - opening) / 1000).toFixed(1)} s); preparing the default merchant…`,
    );
    const defaultMerchant = await ensureDefaultMerchant(database.db, systemClock, config.pinnedKeys);
    const signInToken = await createSignInLink(database.db, systemClock, defaultMerchant.merchant.id);
    await eventBus.start();
    await credentialWatch.start();
    const metrics = createMetrics();
    trackLiveSubscriptions(metrics, () => eventBus.size);
    const deps = {
      database,
      publicUrl: config.publicUrl,
      serviceConfig: config.services,
      webhookTransport,
      rateLimitPerSecond: config.rateLimitPerSecond,
      clockFor: (merchantId: string) => clockFor(database.db, merchantId),
      logger,
      eventBus,
      credentialWatch,
      signups: new SignupLimiter(config.signupsPerMinute),
      requestLog: config.requestLog,
    };
    const yoga = lazyYoga(config.publicUrl);
    const app = buildApp({ deps, metrics, isReady: () => ready, yoga });
    const server = await listen(app, config.host, config.port);
    let stripeServer: Server | null;
    try {
      stripeServer = await listenStripe(app, config, logger);
    } catch (error) {
      server.close();
      throw error;
    }
    // graphql-ws on the same port and path; `serve` made a plain node:http server.
    const graphqlWs = attachGraphQLWebSocket(server as Server, {
      yoga,
      deps,
      closeTimeoutMs: Math.min(5_000, config.shutdownTimeoutMs),
    });
    const runner = startDueWorkRunner(processContextOf(deps), config, logger, metrics, database.availability);
    const maintenance = startMaintenance(database, config.maintenanceIntervalMs, logger);
    eventBus.onAnnouncement((announcement) => {
      if (announcement.deliveries) runner.kick();
    });
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    const stripePort = stripeServer ? (stripeServer.address() as AddressInfo).port : null;
    const hostInUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
    const stripeUrl = stripePort === null ? null : `http://${hostInUrl}:${stripePort}`;
    progress(`listening on ${url}`);
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        ready = false;
        // Live subscribers go first (1001 Going away; clients reconnect elsewhere), then the LISTEN.
        await Promise.all([runner.stop(), maintenance.stop(), graphqlWs.close()]);
        await Promise.all([eventBus.close(), credentialWatch.close()]);
        // Both listeners drain (the main port and the Stripe dialect's) before the database closes.
        const listeners = stripeServer ? [server, stripeServer] : [server];
        await new Promise<void>((resolve) => {
          let open = listeners.length;
          const timer = setTimeout(() => {
            logger.warn('in-flight requests did not finish in time; closing their connections');
            for (const listener of listeners) listener.closeAllConnections();
            resolve();
          }, config.shutdownTimeoutMs);
          for (const listener of listeners) {
            listener.close(() => {
              open -= 1;
              if (open > 0) return;
              clearTimeout(timer);
              resolve();
            });
            listener.closeIdleConnections();
          }
        });
        // The request log's last entries (those of the requests just finished) before the database goes.
        await flushRequestLog(database.db);
        await database.close();
      })();
      return closing;
    };
    return {
      url,
      port,
      stripeUrl,
      database,
      defaultMerchant,
      dashboardSignInUrl: `${config.publicUrl}/dashboard/login/${signInToken}`,
      close,
    };
  } catch (error) {
    await Promise.all([eventBus.close(), credentialWatch.close()]);
    await database.close();
    throw error;
  }
}
