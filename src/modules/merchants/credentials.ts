import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';

/**
 * The channel on which a change of a merchant's credentials (keys rolled, a dashboard session
 * ended) is announced, in the transaction that makes it: every instance LISTENing on the database
 * hears it after commit, forgets its cached keys and re-checks its live connections at once.
 */
export const CREDENTIALS_CHANNEL = 'sandbank_credentials';

export async function announceCredentialChange(exec: Executor, merchantId: string): Promise<void> {
  await exec.execute(sql`SELECT pg_notify(${CREDENTIALS_CHANNEL}, ${merchantId})`);
}

/**
 * What else ends with a merchant's keys, in the roll's transaction (`keep`: the session token of the
 * browser that asked for the roll). The dashboard registers the end of its sessions here
 * (modules/reactions.ts): it depends on the merchants module, not the other way round.
 */
export type KeysRolledHook = (exec: Executor, merchantId: string, at: Date, keep?: string) => Promise<void>;
const keysRolledHooks: KeysRolledHook[] = [];

export function onKeysRolled(hook: KeysRolledHook): void {
  if (!keysRolledHooks.includes(hook)) keysRolledHooks.push(hook);
}

export async function afterKeysRolled(
  exec: Executor,
  merchantId: string,
  at: Date,
  keep?: string,
): Promise<void> {
  for (const hook of keysRolledHooks) await hook(exec, merchantId, at, keep);
}
