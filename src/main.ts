import { loadConfig } from './config.ts';
import { createLogger } from './observability.ts';
import { type RunningServer, startServer } from './server.ts';

function banner(server: RunningServer, publicUrl: string, storage: string): string {
  const m = server.defaultMerchant;
  const secret =
    m.secretKey ??
    `sk_test_…${m.secretKeyLast4} (shown once at creation; pin it with SANDBANK_SECRET_KEY or run "npm run sandbank -- keys roll")`;
  const publicKey = m.publicKey ?? `pk_test_…${m.publicKeyLast4}`;
  return [
    '',
    '  Sandbank — payment simulation sandbox (TEST MODE)',
    '',
    `  API        ${publicUrl}/v1        (docs: ${publicUrl}/docs)`,
    `  Dashboard  ${server.dashboardSignInUrl}`,
    '             (a one-time sign-in link for the merchant below, valid 24 hours)',
    `  GraphQL    ${publicUrl}/graphql`,
    `  Checkout   ${publicUrl}/checkout/{collection id}`,
    `  Storage    ${storage}`,
    '',
    `  Merchant   ${m.merchant.name} (${m.merchant.id})${m.created ? ' — created now' : ''}`,
    `  Secret key ${secret}`,
    `  Public key ${publicKey}`,
    '',
    `  Try: curl -X POST ${publicUrl}/v1/collect -H "Authorization: Bearer ${m.secretKey ?? 'sk_test_...'}" \\`,
    `            -H "Content-Type: application/json" -d '{"amount": 25.00, "currency": "USD"}'`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const storage =
    config.database.driver === 'postgres'
      ? 'PostgreSQL (DATABASE_URL)'
      : config.database.dataDir
        ? `PGlite, persisted in ${config.database.dataDir}/`
        : 'PGlite in memory (--memory: nothing is kept)';
  const server = await startServer(config, logger);
  process.stdout.write(`${banner(server, config.publicUrl, storage)}\n`);
  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      process.stderr.write('Still shutting down (waiting for in-flight requests and the database).\n');
      return;
    }
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbank: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
