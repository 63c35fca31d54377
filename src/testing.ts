/**
 * `sandbank/testing`: a Sandbank server inside the test process, for a developer's own test suite.
 *
 *   const sandbank = await startSandbank();
 *   // sandbank.url, sandbank.secretKey: point the code under test at it
 *   const hooks = await sandbank.webhookReceiver();
 *   ... // the code under test collects a payment
 *   const event = await hooks.waitFor('card_payment.succeeded');
 *   await sandbank.close();
 *
 * PGlite in memory by default (the build's pre-migrated snapshot: no migrations run), on a free
 * loopback port. Everything the helpers do goes through the public REST API with the merchant's
 * own key, as the code under test would. docs/guide/testing.md describes it.
 *
 * The public types below are self-contained (no import of the server's own types), so that the
 * declaration file the build emits for this entry stands alone; the webhook receiver and the REST
 * call the helpers make are testing-receiver.ts's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from './server.ts';
import { call, startReceiver } from './testing-receiver.ts';
import { shareServer, signUpOnSharedServer, stopSharedServer } from './testing-shared.ts';

export interface StartSandbankOptions {
  /** A PostgreSQL URL to run on instead of PGlite in memory (its schema is migrated on start). */
  databaseUrl?: string;
  /** A PGlite data folder to keep the data in, instead of memory (ignored with databaseUrl). */
  dataDir?: string;
  /** The port to listen on; default 0: a free one. */
  port?: number;
  /** The address to listen on; default 127.0.0.1. */
  host?: string;
  /** The base of the links the server hands out (checkout URLs); default: the server's own url. */
  publicUrl?: string;
  /** Pin the default merchant's secret key (sk_test_…), as SANDBANK_SECRET_KEY does. */
  secretKey?: string;
  /** Pin the default merchant's public key (pk_test_…), as SANDBANK_PUBLIC_KEY does. */
  publicKey?: string;
  /** The server's log level; default 'silent'. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Any other server setting by its environment variable name (FX_RATES, SANDBANK_MERCHANT_MCC,
   * RATE_LIMIT_PER_SECOND, …: docs/reference/configuration.md). The process's own environment is not read.
   */
  env?: Record<string, string>;
}

/** The clock as `POST /v1/clock/advance` answers it. */
export interface SandbankClock {
  object: 'clock';
  /** The merchant's clock time now (ISO 8601). */
  now: string;
  frozen: boolean;
  offset_ms: number;
  /** The due work the advance ran on the way (settlements, expiries, webhook retries…). */
  ran: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

/** Forward by a number of seconds, or to an instant (ISO 8601 with an offset, or a Date). */
export type AdvanceBy = { seconds: number } | { to: string | Date };

/** An event as a webhook delivers it (the body of the POST, signature verified). */
export interface SandbankEvent {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  /** `data.object`: the object the event is about, as the API renders it. */
  data: { object: Record<string, unknown> & { id: string; object: string } };
  [field: string]: unknown;
}

export interface WaitForOptions {
  /** Reject after this many milliseconds without a matching event; default 10 000. */
  timeoutMs?: number;
}

export interface WebhookReceiver {
  /** The receiver's own address (registered as the merchant's webhook endpoint). */
  url: string;
  /** The webhook endpoint's id (we_…) and signing secret (whsec_…). */
  endpointId: string;
  secret: string;
  /** Every event received and verified so far, in arrival order. */
  readonly events: readonly SandbankEvent[];
  /** Requests refused because their signature did not verify (a reason each); empty normally. */
  readonly rejected: readonly string[];
  /**
   * The first event of this type (and matching the predicate) received so far or from now on.
   * Rejects after `timeoutMs` (default 10 s), naming what was received instead.
   */
  waitFor(
    type: string,
    predicate?: (event: SandbankEvent) => boolean,
    options?: WaitForOptions,
  ): Promise<SandbankEvent>;
  /** Forget the events received so far (waitFor then waits for new ones). */
  clear(): void;
  /** Deletes the webhook endpoint and stops listening. */
  close(): Promise<void>;
}

export interface WebhookReceiverOptions {
  /** The event types to subscribe to; default every type. */
  events?: string[];
}

/** A merchant and the helpers that act for it (its own key on every request). */
export interface SandbankMerchant {
  id: string;
  name: string;
  secretKey: string;
  publicKey: string;
  /** Moves this merchant's clock forward, running every piece of due work on the way. */
  advanceClock(by: AdvanceBy): Promise<SandbankClock>;
  /** `POST /v1/simulate/reset`: deletes every object of the merchant, clock back to real time. */
  reset(): Promise<Record<string, unknown>>;
  /** Starts a loopback HTTP receiver registered as a webhook endpoint of this merchant. */
  webhookReceiver(options?: WebhookReceiverOptions): Promise<WebhookReceiver>;
}

export interface Sandbank extends SandbankMerchant {
  /** The server's base URL (http://127.0.0.1:port); the REST API is under /v1, GraphQL at /graphql. */
  url: string;
  /** The default merchant's id (its secretKey and publicKey are on this object too). */
  id: string;
  /** Signs up another merchant (`POST /v1/merchants`) and returns its keys and helpers. */
  newMerchant(name?: string): Promise<SandbankMerchant>;
  /** Stops the receivers, the server and the database. */
  close(): Promise<void>;
}

function helpersFor(
  base: string,
  secretKey: string,
  receivers: Set<WebhookReceiver>,
): Pick<SandbankMerchant, 'advanceClock' | 'reset' | 'webhookReceiver'> {
  return {
    advanceClock: (by) =>
      call<SandbankClock>(
        base,
        secretKey,
        'POST',
        '/clock/advance',
        'seconds' in by
          ? { seconds: by.seconds }
          : { to: by.to instanceof Date ? by.to.toISOString() : by.to },
      ),
    reset: () => call<Record<string, unknown>>(base, secretKey, 'POST', '/simulate/reset'),
    async webhookReceiver(options = {}) {
      const receiver = await startReceiver(base, secretKey, options, (closed) => receivers.delete(closed));
      receivers.add(receiver);
      return receiver;
    },
  };
}

interface SignedUp {
  id: string;
  name: string;
  secret_key: string;
  public_key: string;
}

/** Picks a free loopback port (for a public URL that names the port the server will listen on). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts a Sandbank server in this process; `close()` it when the tests are done. */
export async function startSandbank(options: StartSandbankOptions = {}): Promise<Sandbank> {
  const host = options.host ?? '127.0.0.1';
  const env: Record<string, string> = {
    // Sign-ups are how tests get merchants: no per-minute cap. Webhooks go to loopback receivers.
    SIGNUPS_PER_MINUTE: '0',
    WEBHOOK_BLOCK_PRIVATE_NETWORKS: 'false',
    // A test suite's data need not survive a crash: commits are not waited onto the disk
    // (env: { SANDBANK_DURABILITY: 'full' } to test the server's durability itself).
    SANDBANK_DURABILITY: 'relaxed',
    ...options.env,
    HOST: host,
    LOG_LEVEL: options.logLevel ?? 'silent',
  };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else if (options.dataDir) env.SANDBANK_DATA_DIR = options.dataDir;
  else env.SANDBANK_MEMORY = '1';
  if (options.secretKey) env.SANDBANK_SECRET_KEY = options.secretKey;
  if (options.publicKey) env.SANDBANK_PUBLIC_KEY = options.publicKey;
  // The server's code is loaded here, not on import: a test file that only signs up merchants on
  // the run's shared server (sandbankMerchant) does not load it. On PGlite the database starts
  // opening in its thread first, while the rest of the server loads (as `npm start` does).
  const [{ prestart }, { chooseDatabase }] = await Promise.all([
    import('./prestart.ts'),
    import('./storage.ts'),
  ]);
  prestart(chooseDatabase(env, []), env);
  const [{ loadConfig }, { createLogger }, { startServer }] = await Promise.all([
    import('./config.ts'),
    import('./observability.ts'),
    import('./server.ts'),
  ]);
  // The links the server hands out must name the port it listens on: with port 0, pick one first
  // (a port taken in between makes the start fail with EADDRINUSE: it is tried again).
  let server: RunningServer | undefined;
  for (let attempt = 0; !server; attempt++) {
    const port = options.port ?? (await freePort(host));
    env.PORT = String(port);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    env.PUBLIC_URL = options.publicUrl ?? `http://${urlHost}:${port}`;
    const config = loadConfig(env, []);
    try {
      server = await startServer(config, createLogger(config.logLevel));
    } catch (error) {
      const retry = options.port === undefined && attempt < 3 && /already in use/.test(String(error));
      if (!retry) throw error;
    }
  }
  const running = server;
  const base = running.url;
  const receivers = new Set<WebhookReceiver>();
  const signUp = (name: string) => call<SignedUp>(base, null, 'POST', '/merchants', { name });
  const merchant = running.defaultMerchant;
  let own: { id: string; name: string; secretKey: string; publicKey: string };
  // The default merchant when its keys were made or pinned by this start (keys read back from an
  // existing database belong to whoever made them: a merchant of this run's own instead).
  const knownNow =
    merchant.created || (env.SANDBANK_SECRET_KEY !== undefined && env.SANDBANK_PUBLIC_KEY !== undefined);
  if (knownNow && merchant.secretKey && merchant.publicKey) {
    own = {
      id: merchant.merchant.id,
      name: merchant.merchant.name,
      secretKey: merchant.secretKey,
      publicKey: merchant.publicKey,
    };
  } else {
    // A database whose default merchant's keys were issued before (and not pinned): a merchant of
    // this run's own, whose keys are known.
    try {
      const created = await signUp('Test merchant');
      own = {
        id: created.id,
        name: created.name,
        secretKey: created.secret_key,
        publicKey: created.public_key,
      };
    } catch (error) {
      await running.close();
      throw error;
    }
  }
  let closing: Promise<void> | null = null;
  return {
    url: base,
    ...own,
    ...helpersFor(base, own.secretKey, receivers),
    async newMerchant(name = 'Test merchant') {
      const created = await signUp(name);
      return {
        id: created.id,
        name: created.name,
        secretKey: created.secret_key,
        publicKey: created.public_key,
        ...helpersFor(base, created.secret_key, receivers),
      };
    },
    close() {
      closing ??= (async () => {
        await Promise.all([...receivers].map((receiver) => receiver.close()));
        await running.close();
      })();
      return closing;
    },
  };
}

/** Options of sandbankMerchant(). */
export interface SandbankMerchantOptions {
  /** The merchant's name; default 'Test merchant'. */
  name?: string;
  /** The server to sign up on; default the run's shared server (the SANDBANK_URL environment variable). */
  url?: string;
}

/** A merchant of the test run's shared server, with the helpers that act for it. */
export interface SharedSandbankMerchant extends SandbankMerchant {
  /** The server's base URL (http://127.0.0.1:port); the REST API is under /v1, GraphQL at /graphql. */
  url: string;
  /** Stops this merchant's webhook receivers (deleting their endpoints); the server keeps running. */
  close(): Promise<void>;
}

/**
 * Signs up a merchant of its own (`POST /v1/merchants`: keys, clock, objects and webhook endpoints
 * no other merchant sees) on the server the test run's global setup started, whose url it finds in
 * SANDBANK_URL: a few milliseconds, where startSandbank() takes a second. Fails, saying how to start
 * one, when no global setup did. docs/guide/testing.md describes the pattern per runner.
 */
export function sandbankMerchant(options: SandbankMerchantOptions = {}): Promise<SharedSandbankMerchant> {
  return signUpOnSharedServer(options, helpersFor);
}

/**
 * A global setup: starts the test run's shared server (startSandbank with these options) and puts
 * its url in SANDBANK_URL, which the runner hands on to the test files; resolves with the function
 * that stops it. When SANDBANK_URL is already set (`sandbank test`, a server CI started), that
 * server is used and none is started. `sandbank/testing/vitest-setup` and `…/jest-setup` call it
 * with no options; a setup file of your own can give some.
 */
export function sandbankGlobalSetup(options: StartSandbankOptions = {}): Promise<() => Promise<void>> {
  return shareServer(() => startSandbank(options));
}

/** Stops the server sandbankGlobalSetup() started in this process (Jest's globalTeardown). */
export function sandbankGlobalTeardown(): Promise<void> {
  return stopSharedServer();
}
