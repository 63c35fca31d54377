import type { Logger } from 'pino';
import type { Database } from './db/client.ts';
import type { Clock } from './kernel/clock.ts';
import type { WebhookTransport } from './kernel/webhook-transport.ts';
import type { ServiceConfig } from './modules/context.ts';
import type { EventBus } from './modules/events/events.bus.ts';
import type { CredentialWatch } from './modules/merchants/credential-watch.ts';
import type { SignupLimiter } from './modules/merchants/signups.ts';
import type { RequestLogSettings } from './modules/request-log/request-log.writer.ts';

// AppDeps: what the adapters (REST, GraphQL, pages) are built from; server.ts (or a test) provides
// it. The interface is src/modules/context.ts's, so that the adapters' kits name it without
// importing the wiring; its members are declared here, with the modules' types they carry.
declare module './modules/context.ts' {
  interface AppDeps {
    database: Database;
    publicUrl: string;
    /** What the services are configured with (every service context carries it). */
    serviceConfig: ServiceConfig;
    /** How webhook deliveries are sent (every service context carries it). */
    webhookTransport: WebhookTransport;
    rateLimitPerSecond: number;
    /** The merchant's simulated clock, loaded once per request. */
    clockFor: (merchantId: string) => Promise<Clock>;
    logger: Logger;
    /** Live events for GraphQL subscriptions; server.ts provides it (in-process test apps may not). */
    eventBus?: EventBus;
    /**
     * Ends live connections and subscriptions when the credential that opened them stops
     * authenticating (a key roll, a sign-out); server.ts provides it with the event bus.
     */
    credentialWatch?: CredentialWatch;
    /** The cap on keyless sign-ups per client address (none when absent). */
    signups?: SignupLimiter;
    /** The request log's settings (REQUEST_LOG, …_RETENTION_HOURS, …_MAX_PER_MERCHANT); the defaults when absent. */
    requestLog?: RequestLogSettings;
  }
}

export { type AppDeps, processContextOf } from './modules/context.ts';
