import type { Db, Executor, Tx } from './client.ts';

/** Runs `work` in the caller's transaction when there is one, else in a new one. */
export async function inTransaction<T>(db: Db, tx: Tx | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (tx) return work(tx);
  return db.transaction(work);
}

export type { Executor };
