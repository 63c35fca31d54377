import { loadConfig } from './config.ts';
import { createLogger } from './observability.ts';
import { type RunningServer, startServer } from './server.ts';
import { durabilityLabel, storageLabel } from './storage.ts';

/**
 * The banner printed once the server listens. It shows the default merchant's test keys in full on
 * every start, the first and any restart alike (docs/decisions/sandbox-keys-in-banners.md): they
 * are sandbox keys, kept whole in the database (docs/internals/secret-keys.md), and the same output
 * already carries a dashboard sign-in link that reveals them. Only a secret key made before keys
 * were kept whole cannot be shown: its last 4 characters then, and how to get a new one.
 */
export function banner(
  server: Pick<RunningServer, 'defaultMerchant' | 'dashboardSignInUrl'> &
    Partial<Pick<RunningServer, 'stripeUrl'>>,
  publicUrl: string,
  storage: string,
  durability = durabilityLabel('full'),
): string {
  const m = server.defaultMerchant;
  const secret =
    m.secretKey ??
    `sk_test_…${m.secretKeyLast4} (stored only as a hash, from before keys were kept whole: roll the keys on the dashboard's API keys page, signing in with the link above, or pin one with SANDBANK_SECRET_KEY)`;
  const publicKey = m.publicKey ?? `pk_test_…${m.publicKeyLast4}`;
  return [
    '',
    '  Sandbank — payment simulation sandbox (TEST MODE)',
    '',
    `  API        ${publicUrl}/v1        (docs: ${publicUrl}/docs)`,
    `  Dashboard  ${server.dashboardSignInUrl}`,
    '             (a one-time sign-in link for the merchant below, valid 24 hours)',
    `  GraphQL    ${publicUrl}/graphql`,
    `  Stripe     ${server.stripeUrl ?? `${publicUrl}/stripe`}  (Stripe's SDKs: host and port; docs/guide/stripe.md)`,
    `  Checkout   ${publicUrl}/checkout/{collection id}?secret=…  (a collection's checkout_url)`,
    `  Storage    ${storage}`,
    `  Durability ${durability}`,
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

/**
 * Start-up never waits silently: a line every few seconds while the database opens, and an error
 * naming it once STARTUP_TIMEOUT_MS has passed (an unreachable Postgres, a lock held elsewhere).
 */
async function withDeadline<T>(start: () => Promise<T>, timeoutMs: number, storage: string): Promise<T> {
  const started = Date.now();
  const progress = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stdout.write(`Sandbank: still opening ${storage} (${seconds} s)…\n`);
  }, 5_000);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `${storage} did not open within ${Math.round(timeoutMs / 1000)} s (STARTUP_TIMEOUT_MS). Is the database running and reachable?`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    // Started once the deadline runs, so the deadline is always the first to end a start that waits.
    return await Promise.race([start(), deadline]);
  } finally {
    clearInterval(progress);
    clearTimeout(timer);
  }
}

/**
 * Loads the configuration, opens the database and serves; main.ts has printed the first line, and
 * each step prints one more ("Sandbank: listening on …") before the banner.
 */
export async function start(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const storage = storageLabel(config.database);
  const server = await withDeadline(
    () => startServer(config, logger, (step) => process.stdout.write(`Sandbank: ${step}\n`)),
    config.startupTimeoutMs,
    storage,
  );
  process.stdout.write(`${banner(server, config.publicUrl, storage, durabilityLabel(config.durability))}\n`);
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
