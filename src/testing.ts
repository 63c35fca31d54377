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
import { helpersFor, startSandbankServer } from './testing-server.ts';
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

/** A snapshot as `POST /v1/sandbox/snapshots` answers it. */
export interface SandboxSnapshot {
  id: string;
  object: 'snapshot';
  name: string;
  /** Rows it holds, by table. */
  counts: Record<string, number>;
  objects: number;
  created_at: string;
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

/** One API request of the merchant, as its request log keeps it (GET /v1/requests; docs/guide/request-log.md). */
export interface SandbankRequest {
  /** The request's Request-Id (req_…). */
  id: string;
  object: 'request_log';
  method: string;
  /** The path without the query string (/v1/card_payments, /graphql). */
  path: string;
  /** REST's operationId (createCardPayment) or the GraphQL operation's name; null when no route matched. */
  operation: string | null;
  /** The answer's HTTP status. */
  status_code: number;
  /** The error's code when the answer was an error (card_declined); null otherwise. */
  error_code: string | null;
  idempotency_key: string | null;
  latency_ms: number;
  /** api, dashboard, cli, or testing (these helpers' own requests). */
  source: 'api' | 'dashboard' | 'cli' | 'testing';
  query: string | null;
  /** When it arrived (ISO 8601, real time). */
  created_at: string;
  [field: string]: unknown;
}

/** A request with its bodies, as expectRequest() answers it: JSON text, card data and secrets masked. */
export interface SandbankRequestDetail extends SandbankRequest {
  request_body: string | null;
  response_body: string | null;
}

/** Which requests requests() reads; each option narrows them. */
export interface SandbankRequestsOptions {
  /** Only requests that arrived at or after this instant (ISO 8601, or a Date). */
  since?: string | Date;
  /** REST's operationId or the GraphQL operation's name. */
  operation?: string;
  /** A status (402), a class ('4xx') or a comma-separated list ('400,5xx'). */
  status?: number | string;
  method?: string;
  /** A path (/v1/collect), or a prefix ending in * (/v1/card_payments*). */
  path?: string;
  idempotencyKey?: string;
  /** Include these helpers' own requests (source testing: advanceClock, snapshot…); default false. */
  includeTesting?: boolean;
}

/** What expectRequest() looks for: every field given must match. */
export type SandbankRequestMatch = Omit<SandbankRequestsOptions, 'includeTesting'>;

/** What checkWebhooks() judges, and how. */
export interface CheckWebhooksOptions {
  /** The handler's URL: the merchant's endpoint with that URL is used, else one is created. */
  url: string;
  /** The secret the handler verifies with, for an endpoint created now (whsec_ + base64 of 24 to 64 bytes). */
  secret?: string;
  /** How long each delivery may take to be answered, ms (1000-15000, default 5000). */
  timeoutMs?: number;
  /** Draw the amounts and forged bytes from this seed (the run reports the one it used). */
  seed?: number;
}

/** One scenario of a conformance run: what a correct handler does, and what this one did. */
export interface WebhookConformanceScenario {
  id: string;
  title: string;
  expectation: string;
  outcome: 'passed' | 'failed' | 'timed_out' | 'pending';
  /** Why it failed or timed out, naming the deliveries and calls that show it; null when it passed. */
  explanation: string | null;
  [field: string]: unknown;
}

/** A conformance run as it ended (docs/guide/webhook-conformance.md), with its failures picked out. */
export interface WebhookConformanceReport {
  id: string;
  object: 'webhook_conformance_run';
  endpoint_id: string;
  url: string;
  state: 'running' | 'passed' | 'failed' | 'interrupted';
  seed: number;
  summary: { total: number; passed: number; failed: number; timed_out: number; pending: number };
  scenarios: WebhookConformanceScenario[];
  /** The scenarios that did not pass: empty for a handler that does everything right. */
  failures: WebhookConformanceScenario[];
  junit_url: string;
  [field: string]: unknown;
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
  /**
   * `POST /v1/sandbox/snapshots`: saves the merchant's whole sandbox (objects, ledger, events, due
   * work, webhook endpoints, clock) under `name`, replacing a snapshot of that name.
   */
  snapshot(name: string): Promise<SandboxSnapshot>;
  /**
   * `POST /v1/sandbox/snapshots/{name}/restore`: puts it all back as saved, in one transaction.
   * Webhook endpoints are restored too: start receivers before saving, so they survive a restore.
   */
  restore(name: string): Promise<SandboxSnapshot>;
  /** Starts a loopback HTTP receiver registered as a webhook endpoint of this merchant. */
  webhookReceiver(options?: WebhookReceiverOptions): Promise<WebhookReceiver>;
  /**
   * The merchant's API requests from its request log, oldest first, without their bodies; these
   * helpers' own requests are left out unless `includeTesting`.
   */
  requests(options?: SandbankRequestsOptions): Promise<SandbankRequest[]>;
  /**
   * The newest request that matches (with its bodies); throws an Error naming what was expected and
   * listing the requests made (method path → status, operation) when none does.
   */
  expectRequest(match: SandbankRequestMatch): Promise<SandbankRequestDetail>;
  /** Judges the webhook handler at `url` with the conformance suite; answers the report once it has ended. */
  checkWebhooks(options: CheckWebhooksOptions): Promise<WebhookConformanceReport>;
}

export interface Sandbank extends SandbankMerchant {
  /** The server's base URL (http://127.0.0.1:port); the REST API is under /v1, GraphQL at /graphql. */
  url: string;
  id: string; // the default merchant's (its secretKey and publicKey are on this object too)
  /** Where Stripe's SDKs reach its Stripe dialect (a port of its own: `new Stripe(key, {host, port, protocol})`). */
  stripeUrl: string | null;
  /** Signs up another merchant (`POST /v1/merchants`) and returns its keys and helpers. */
  newMerchant(name?: string): Promise<SandbankMerchant>;
  /** Stops the receivers, the server and the database. */
  close(): Promise<void>;
}

/** Starts a Sandbank server in this process; `close()` it when the tests are done. */
export function startSandbank(options: StartSandbankOptions = {}): Promise<Sandbank> {
  return startSandbankServer(options);
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
