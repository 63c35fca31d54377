import type { Logger } from 'pino';
import type { Database, Tx } from '../db/client.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Principal } from '../modules/merchants/merchants.service.ts';

/** What the adapters are built from; main.ts (or a test) provides it. */
export interface AppDeps {
  database: Database;
  publicUrl: string;
  rateLimitPerSecond: number;
  /** The merchant's simulated clock (API.md §8), loaded once per request. */
  clockFor: (merchantId: string) => Promise<Clock>;
  logger: Logger;
}

export interface RestEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    principal: Principal;
    /** The authenticated merchant's clock. */
    clock: Clock;
    /** The parsed JSON body of a POST (an object), or {} when the request had no body. */
    body: Record<string, unknown>;
    /** The transaction an idempotent request runs in. */
    tx: Tx | undefined;
  };
}
