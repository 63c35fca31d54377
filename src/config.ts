import { z } from 'zod';
import { DEFAULT_DELIVERY_LIMITS, type DeliveryLimits } from './kernel/webhook-transport.ts';
import { DEFAULT_SERVICE_CONFIG, type ServiceConfig } from './modules/context.ts';
import {
  DEFAULT_FX_RATES,
  DEFAULT_SPREAD,
  parseFxRatesConfig,
  parseSpreadConfig,
} from './modules/fx/fx.rates.ts';
import {
  DEFAULT_REQUEST_LOG_SETTINGS,
  type RequestLogSettings,
} from './modules/request-log/request-log.writer.ts';
import {
  chooseDatabase,
  type DatabaseChoice,
  DEFAULT_DATA_DIR,
  DURABILITY_SETTINGS,
  type Durability,
  MEMORY_SETTINGS,
} from './storage.ts';

/** A whole number from `min` to `max`, `fallback` when unset. */
const whole = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4242),
  HOST: z.string().min(1).default('127.0.0.1'),
  STRIPE_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).optional(),
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  SANDBANK_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  SANDBANK_MEMORY: z.enum(MEMORY_SETTINGS).optional(),
  SANDBANK_DURABILITY: z.enum(DURABILITY_SETTINGS).default('full'),
  SANDBANK_SECRET_KEY: z.string().min(1).optional(),
  SANDBANK_PUBLIC_KEY: z.string().min(1).optional(),
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(0),
  SIGNUPS_PER_MINUTE: z.coerce.number().int().min(0).default(100),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  STARTUP_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(0).default(1000),
  MAINTENANCE_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  WEBHOOK_BLOCK_PRIVATE_NETWORKS: z.enum(['0', '1', 'true', 'false']).default('false'),
  WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  WEBHOOK_TIMEOUT_MS: whole(100, 120_000, DEFAULT_DELIVERY_LIMITS.timeoutMs),
  WEBHOOK_FAILING_TIMEOUT_MS: whole(100, 120_000, DEFAULT_DELIVERY_LIMITS.failingTimeoutMs),
  WEBHOOK_FAILING_STREAK: whole(1, 1000, DEFAULT_DELIVERY_LIMITS.failingStreak),
  WEBHOOK_CONCURRENCY: whole(1, 10_000, DEFAULT_DELIVERY_LIMITS.concurrency),
  WEBHOOK_CONCURRENCY_PER_MERCHANT: whole(1, 10_000, DEFAULT_DELIVERY_LIMITS.perMerchant),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: whole(1, 10_000, DEFAULT_DELIVERY_LIMITS.perEndpoint),
  SANDBANK_MERCHANT_MCC: z
    .string()
    .regex(/^(?!0000)\d{4}$/, 'a merchant category code is four digits, 0001-9999')
    .default(DEFAULT_SERVICE_CONFIG.merchantMcc),
  FX_RATES: z.string().optional(),
  FX_SPREAD: z.string().optional(),
  REQUEST_LOG: z.enum(['on', 'off', '1', '0', 'true', 'false']).default('on'),
  REQUEST_LOG_RETENTION_HOURS: whole(1, 8760, DEFAULT_REQUEST_LOG_SETTINGS.retentionHours),
  REQUEST_LOG_MAX_PER_MERCHANT: whole(1, 1_000_000, DEFAULT_REQUEST_LOG_SETTINGS.maxPerMerchant),
});

/** The Stripe dialect's own port (docs/guide/stripe.md): STRIPE_PORT, else 12111 if it is free. */
export interface StripePortChoice {
  port: number;
  /** Set by STRIPE_PORT: a taken port fails the start. The default one is skipped with a warning. */
  explicit: boolean;
}

/** Where Stripe clients already point (stripe-mock's port). */
export const DEFAULT_STRIPE_PORT = 12111;

export interface Config {
  port: number;
  /** The Stripe dialect's port; null when STRIPE_PORT=off (it is still served under /stripe). */
  stripePort: StripePortChoice | null;
  host: string;
  /** Base of every URL the server hands out (checkout links). */
  publicUrl: string;
  database: DatabaseChoice;
  /** Whether an answer waits for its commit to reach the disk (full) or not (relaxed: tests). */
  durability: Durability;
  pinnedKeys: { secretKey?: string; publicKey?: string };
  rateLimitPerSecond: number;
  /** Keyless sign-ups per client address and minute (0: no cap). */
  signupsPerMinute: number;
  logLevel: z.output<typeof envSchema>['LOG_LEVEL'];
  shutdownTimeoutMs: number;
  /** How long start-up may wait for the database (open, migrate) before it gives up with an error. */
  startupTimeoutMs: number;
  /** How often due work is looked for in real time; 0 turns the background runner off. */
  schedulerIntervalMs: number;
  /** How often expired data is purged and PGlite vacuumed and checkpointed; 0 turns it off. */
  maintenanceIntervalMs: number;
  /** Refuse webhook receivers on loopback, private, link-local and metadata addresses. */
  webhookBlockPrivateNetworks: boolean;
  /** Receiver hosts delivered to although private (WEBHOOK_ALLOWED_HOSTS, comma-separated). */
  webhookAllowedHosts: string[];
  /**
   * Webhook attempts' limits (WEBHOOK_TIMEOUT_MS, WEBHOOK_FAILING_TIMEOUT_MS after
   * WEBHOOK_FAILING_STREAK failures in a row) and how many may be in flight (WEBHOOK_CONCURRENCY,
   * _PER_MERCHANT, _PER_ENDPOINT).
   */
  webhookLimits: DeliveryLimits;
  /**
   * What the services run with: the merchant category code this sandbox's merchants present to its
   * issuer (SANDBANK_MERCHANT_MCC), the base mid rates USD→EUR/GBP/JPY (FX_RATES) and the spread
   * taken off them (FX_SPREAD, a percentage).
   */
  services: ServiceConfig;
  /**
   * The request log: on or off (REQUEST_LOG), how long it keeps a request (REQUEST_LOG_RETENTION_HOURS,
   * real time) and how many per merchant (REQUEST_LOG_MAX_PER_MERCHANT).
   */
  requestLog: RequestLogSettings;
}

/**
 * WEBHOOK_ALLOWED_HOSTS: host names or IP addresses, separated by commas or spaces
 * (`receiver, hooks.internal, 10.0.0.7`), each exactly as receiver URLs name their host.
 */
function parseAllowedHosts(text: string): string[] {
  const hosts = text
    .split(/[\s,]+/)
    // As the transport compares them (normalizeHost), without loading it here (prestart.ts reads this).
    .map((host) =>
      host
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.$/, ''),
    )
    .filter((host) => host !== '');
  for (const host of hosts) {
    const hostAndPort = host.split(':').length === 2;
    if (!/^[a-z0-9_.:-]+$/.test(host) || hostAndPort || host.startsWith('.') || host.includes('..'))
      throw new Error(
        `"${host}" is not a host name or IP address (list hosts only, no scheme, port or path: "receiver, 10.0.0.7").`,
      );
  }
  return hosts;
}

function configured<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new Error(`Invalid configuration ${name}: ${(error as Error).message}`);
  }
}

/** Reads configuration from the environment and command-line flags (--memory, --port N). */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv.slice(2),
): Config {
  // An empty variable (DATABASE_URL= npm start) means unset.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid configuration ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  const portFlag = argv.indexOf('--port');
  const port = portFlag >= 0 ? Number(argv[portFlag + 1]) : e.PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port needs a number 0-65535');
  const hostForUrl = e.HOST === '0.0.0.0' || e.HOST === '::' || e.HOST === '127.0.0.1' ? 'localhost' : e.HOST;
  return {
    port,
    stripePort:
      e.STRIPE_PORT === 'off'
        ? null
        : { port: e.STRIPE_PORT ?? DEFAULT_STRIPE_PORT, explicit: e.STRIPE_PORT !== undefined },
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://${hostForUrl}:${port}`).replace(/\/+$/, ''),
    database: chooseDatabase(present, argv),
    durability: e.SANDBANK_DURABILITY,
    pinnedKeys: {
      ...(e.SANDBANK_SECRET_KEY ? { secretKey: e.SANDBANK_SECRET_KEY } : {}),
      ...(e.SANDBANK_PUBLIC_KEY ? { publicKey: e.SANDBANK_PUBLIC_KEY } : {}),
    },
    rateLimitPerSecond: e.RATE_LIMIT_PER_SECOND,
    signupsPerMinute: e.SIGNUPS_PER_MINUTE,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    startupTimeoutMs: e.STARTUP_TIMEOUT_MS,
    schedulerIntervalMs: e.SCHEDULER_INTERVAL_MS,
    maintenanceIntervalMs: e.MAINTENANCE_INTERVAL_MS,
    webhookBlockPrivateNetworks:
      e.WEBHOOK_BLOCK_PRIVATE_NETWORKS === '1' || e.WEBHOOK_BLOCK_PRIVATE_NETWORKS === 'true',
    webhookAllowedHosts:
      e.WEBHOOK_ALLOWED_HOSTS === undefined
        ? []
        : configured('WEBHOOK_ALLOWED_HOSTS', () => parseAllowedHosts(e.WEBHOOK_ALLOWED_HOSTS as string)),
    webhookLimits: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      failingTimeoutMs: e.WEBHOOK_FAILING_TIMEOUT_MS,
      failingStreak: e.WEBHOOK_FAILING_STREAK,
      concurrency: e.WEBHOOK_CONCURRENCY,
      perMerchant: e.WEBHOOK_CONCURRENCY_PER_MERCHANT,
      perEndpoint: e.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    },
    services: {
      merchantMcc: e.SANDBANK_MERCHANT_MCC,
      fx: {
        rates:
          e.FX_RATES === undefined
            ? { ...DEFAULT_FX_RATES }
            : configured('FX_RATES', () => parseFxRatesConfig(e.FX_RATES as string)),
        spread:
          e.FX_SPREAD === undefined
            ? DEFAULT_SPREAD
            : configured('FX_SPREAD', () => parseSpreadConfig(e.FX_SPREAD as string)),
      },
    },
    requestLog: {
      enabled: ['on', '1', 'true'].includes(e.REQUEST_LOG),
      retentionHours: e.REQUEST_LOG_RETENTION_HOURS,
      maxPerMerchant: e.REQUEST_LOG_MAX_PER_MERCHANT,
    },
  };
}
