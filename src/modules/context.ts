import type { Db, Executor, Tx } from '../db/client.ts';
import type { scheduledJobs } from '../db/scheduled-jobs.table.ts';
import { inTransaction } from '../db/tx.ts';
import type { Clock } from '../kernel/clock.ts';
import { DEFAULT_FX_RATES, DEFAULT_SPREAD, type FxConfig } from '../kernel/fx-rates.ts';
import type { WebhookTransport } from '../kernel/webhook-transport.ts';

/** Whether an error says the database could not be reached: the adapters answer it 503. */
export { isDatabaseUnavailable } from '../db/availability.ts';

/**
 * The database handles a service context carries. Adapters that pass them along (a caller-owned
 * transaction) name them from here, never from src/db (docs/internals/house-rules.md, dependencies point inward).
 */
export type { Db, Tx };

export interface MerchantRef {
  id: string;
  name: string;
}

/** The kinds of API key (merchants/keys.ts makes them): a secret key, or a publishable one. */
export type KeyKind = 'secret' | 'public';

/** Who a request acts for: the merchant its key (or dashboard session) belongs to, and the key's kind. */
export interface Principal {
  merchant: MerchantRef;
  keyKind: KeyKind;
}

/**
 * What a live connection or stream authenticated with, kept so it can be checked again: the
 * Authorization header it carried, or the dashboard session whose cookie it rode. `epoch` is the
 * watch's epoch read before the credential was checked (see CredentialWatch.epoch,
 * merchants/credential-watch.ts).
 */
export type Credential =
  | { kind: 'key'; merchantId: string; authorization: string; epoch: number }
  | { kind: 'session'; merchantId: string; token: string; expiresAt: Date; epoch: number };

/**
 * What the services are configured with, the same for every merchant of a process: config.ts reads
 * it from the environment at start-up and the entry points hand it to every context.
 */
export interface ServiceConfig {
  /** The merchant category code this sandbox's merchants present to its issuer (the closed loop). */
  merchantMcc: string;
  /** Base mid rates USD→EUR/GBP/JPY and the spread taken off them. */
  fx: FxConfig;
}

/** The configuration when the environment sets none of it (SANDBANK_MERCHANT_MCC, FX_RATES, FX_SPREAD). */
export const DEFAULT_SERVICE_CONFIG: ServiceConfig = Object.freeze({
  merchantMcc: '5999',
  fx: Object.freeze({ rates: Object.freeze({ ...DEFAULT_FX_RATES }), spread: DEFAULT_SPREAD }),
});

/** What every service function receives: storage, time, the authenticated merchant and the configuration. */
export interface ServiceContext {
  db: Db;
  /** Set when the caller owns the transaction (idempotent requests); services then write inside it. */
  tx?: Tx;
  clock: Clock;
  merchant: MerchantRef;
  publicUrl: string;
  config: ServiceConfig;
  /** How this process sends webhook deliveries (one HTTP agent under the network policy). */
  webhookTransport: WebhookTransport;
}

/** The part of a context that is the same for every merchant and request of a process. */
export type ProcessContext = Pick<ServiceContext, 'db' | 'publicUrl' | 'config' | 'webhookTransport'>;

/** The process part of a context, without its merchant, clock or transaction. */
export function processContext(ctx: ProcessContext): ProcessContext {
  return { db: ctx.db, publicUrl: ctx.publicUrl, config: ctx.config, webhookTransport: ctx.webhookTransport };
}

/** The database handles of a context: the database, and the caller's transaction when it owns one. */
export interface ContextDb {
  db: Db;
  tx?: Tx | undefined;
}

/**
 * Where a service reads: the caller's transaction when it owns one (so the read sees what the
 * caller wrote before it), else the database.
 */
export function dbOf({ db, tx }: ContextDb): Executor {
  return tx ?? db;
}

/**
 * Runs a service's writes in the caller's transaction when it owns one, else in a new one, with
 * the bounded rerun of a transaction that lost a race (inTransaction, src/db/tx.ts).
 */
export function inContextTx<T>({ db, tx }: ContextDb, work: (tx: Tx) => Promise<T>): Promise<T> {
  return inTransaction(db, tx, work);
}

/** A row of due work (the scheduler's table). */
export type JobRow = typeof scheduledJobs.$inferSelect;

/**
 * What one kind of due work does (a manifest's `jobs`, run by the scheduler, scheduler.service.ts):
 * a job runs inside its own savepoint with the clock standing at the job's due time.
 */
export type JobHandler = (ctx: ServiceContext & { tx: Tx }, job: JobRow) => Promise<void>;

/**
 * What the adapters (REST, GraphQL, pages) are built from: the database, the public URL, the
 * configuration, the process's live services. The wiring declares its members (src/deps.ts merges
 * them into this interface, with the types of the modules that provide them), so that the
 * adapters' kits name it from here: nothing below the wiring imports the wiring.
 */
// biome-ignore lint/suspicious/noEmptyInterface: its members are declared by src/deps.ts (declaration merging).
export interface AppDeps {}

/** The part of every service context an adapter builds from the dependencies (its merchant's clock aside). */
export function processContextOf(deps: AppDeps): ProcessContext {
  return {
    db: deps.database.db,
    publicUrl: deps.publicUrl,
    config: deps.serviceConfig,
    webhookTransport: deps.webhookTransport,
  };
}
