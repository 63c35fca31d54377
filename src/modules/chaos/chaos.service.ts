import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { TtlCache } from '../../kernel/ttl-cache.ts';
import type { ServiceContext } from '../context.ts';
import { type ChaosSpec, formatChaos, parseChaos } from './chaos.grammar.ts';
import { chaosSettings } from './chaos.table.ts';

export interface ChaosSetting {
  /** The canonical chaos text, or null when the merchant has no chaos. */
  faults: string | null;
  updatedAt: Date | null;
}

interface Loaded {
  setting: ChaosSetting;
  spec: ChaosSpec | undefined;
}

/**
 * Settings are cached in-process for two seconds, like API keys: a change made in this process
 * applies at once, one made by another instance within two seconds.
 */
const cache = new TtlCache<Loaded>(2_000, 10_000);

/** The position of the next request in each (merchant, seed) sequence of this process. */
const sequences = new Map<string, number>();
const MAX_SEQUENCES = 10_000;

/** The position of this request in the sequence of `seed` for `merchantId` (0 first). */
export function nextInSequence(merchantId: string, seed: number): number {
  const key = `${merchantId}:${seed}`;
  const n = sequences.get(key) ?? 0;
  if (!sequences.has(key) && sequences.size >= MAX_SEQUENCES) sequences.clear();
  sequences.set(key, n + 1);
  return n;
}

function restartSequences(merchantId: string): void {
  for (const key of sequences.keys()) if (key.startsWith(`${merchantId}:`)) sequences.delete(key);
}

async function load(db: Db, merchantId: string): Promise<Loaded> {
  const [row] = await db.select().from(chaosSettings).where(eq(chaosSettings.merchantId, merchantId));
  if (!row) return { setting: { faults: null, updatedAt: null }, spec: undefined };
  return {
    setting: { faults: row.faults, updatedAt: row.updatedAt },
    spec: parseChaos(row.faults, 'faults'),
  };
}

/** The merchant's chaos, as the middleware applies it (undefined: none). */
export async function merchantChaos(db: Db, merchantId: string): Promise<ChaosSpec | undefined> {
  return (await cache.get(merchantId, () => load(db, merchantId))).spec;
}

export async function getChaosSetting(ctx: ServiceContext): Promise<ChaosSetting> {
  return (await load(ctx.tx ?? ctx.db, ctx.merchant.id)).setting;
}

/**
 * Sets (or, with null, "" or "none", clears) the merchant's chaos; stored in its canonical text.
 * Every seeded sequence of the merchant starts again from its first request.
 */
export async function setChaosSetting(ctx: ServiceContext, faults: string | null): Promise<ChaosSetting> {
  const db = ctx.tx ?? ctx.db;
  const merchantId = ctx.merchant.id;
  const text = faults === null || faults.trim() === '' ? 'none' : formatChaos(parseChaos(faults, 'faults'));
  let setting: ChaosSetting;
  if (text === 'none') {
    await db.delete(chaosSettings).where(eq(chaosSettings.merchantId, merchantId));
    setting = { faults: null, updatedAt: null };
  } else {
    const now = ctx.clock.now();
    await db
      .insert(chaosSettings)
      .values({ merchantId, faults: text, updatedAt: now })
      .onConflictDoUpdate({ target: chaosSettings.merchantId, set: { faults: text, updatedAt: now } });
    setting = { faults: text, updatedAt: now };
  }
  cache.forget(merchantId);
  restartSequences(merchantId);
  return setting;
}
