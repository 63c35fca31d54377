import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Database, openDatabase } from './db/client.ts';
import { systemClock } from './kernel/clock.ts';
import { type DefaultMerchant, ensureDefaultMerchant } from './modules/merchants/merchants.service.ts';
import { createMetrics } from './observability.ts';

export interface RunningServer {
  url: string;
  port: number;
  database: Database;
  defaultMerchant: DefaultMerchant;
  /** Graceful stop: refuse new connections, finish in-flight requests, close the database. */
  close(): Promise<void>;
}

function listen(app: ReturnType<typeof buildApp>, host: string, port: number) {
  return new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} on ${host} is already in use. Stop the other server or set PORT.`)
          : error,
      );
    });
  });
}

/** Opens the database, migrates, bootstraps the default merchant and listens. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const database = await openDatabase(
    config.database.driver === 'postgres'
      ? { driver: 'postgres', url: config.database.url }
      : { driver: 'pglite', ...(config.database.dataDir ? { dataDir: config.database.dataDir } : {}) },
  );
  let ready = true;
  try {
    const defaultMerchant = await ensureDefaultMerchant(database.db, systemClock, config.pinnedKeys);
    const metrics = createMetrics();
    const deps = {
      database,
      publicUrl: config.publicUrl,
      rateLimitPerSecond: config.rateLimitPerSecond,
      clockFor: () => systemClock,
      logger,
    };
    const app = buildApp({ deps, metrics, isReady: () => ready });
    const server = await listen(app, config.host, config.port);
    const port = (server.address() as AddressInfo).port;
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= (async () => {
        ready = false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            logger.warn('in-flight requests did not finish in time; closing their connections');
            if ('closeAllConnections' in server) server.closeAllConnections();
            resolve();
          }, config.shutdownTimeoutMs);
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        });
        await database.close();
      })();
      return closing;
    };
    return {
      url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
      port,
      database,
      defaultMerchant,
      close,
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
