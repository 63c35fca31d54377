import type { Logger } from 'pino';
import type { Database } from './db/client.ts';
import type { Clock } from './kernel/clock.ts';
import type { EventBus } from './modules/events/events.bus.ts';
import type { SignupLimiter } from './modules/merchants/signups.ts';

/** What the adapters (REST, GraphQL, pages) are built from; server.ts (or a test) provides it. */
export interface AppDeps {
  database: Database;
  publicUrl: string;
  rateLimitPerSecond: number;
  /** The merchant's simulated clock, loaded once per request. */
  clockFor: (merchantId: string) => Promise<Clock>;
  logger: Logger;
  /** Live events for GraphQL subscriptions; server.ts provides it (in-process test apps may not). */
  eventBus?: EventBus;
  /** The cap on keyless sign-ups per client address (none when absent). */
  signups?: SignupLimiter;
}
