import type { Db, Tx } from '../db/client.ts';
import type { Clock } from '../kernel/clock.ts';

/**
 * The database handles a service context carries. Adapters that pass them along (a caller-owned
 * transaction) name them from here, never from src/db (docs/house-rules.md, dependencies point inward).
 */
export type { Db, Tx };

export interface MerchantRef {
  id: string;
  name: string;
}

/** What every service function receives: storage, time and the authenticated merchant. */
export interface ServiceContext {
  db: Db;
  /** Set when the caller owns the transaction (idempotent requests); services then write inside it. */
  tx?: Tx;
  /**
   * With `tx`: queues work that must follow the caller's commit and still precede its answer (a
   * clock advance's webhook deliveries); dropped if the transaction rolls back.
   */
  afterCommit?: (work: () => Promise<void>) => void;
  clock: Clock;
  merchant: MerchantRef;
  publicUrl: string;
}
