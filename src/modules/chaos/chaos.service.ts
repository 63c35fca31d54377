import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { TtlCache } from '../../kernel/ttl-cache.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { type ChaosSpec, formatChaos, parseChaos } from './chaos.grammar.ts';
import { SeedSequences } from './chaos.sequences.ts';
import { chaosSettings } from './chaos.table.ts';
import {
  formatWebhookChaos,
  parseWebhookChaos,
  type WebhookChaosFault,
  type WebhookChaosSpec,
} from './chaos.webhook-grammar.ts';

export interface ChaosSetting {
  /** The canonical chaos text of API requests, or null when none. */
  faults: string | null;
  /** The canonical chaos text of webhook deliveries, or null when none. */
  webhookFaults: string | null;
  updatedAt: Date | null;
}

interface Loaded {
  setting: ChaosSetting;
  spec: ChaosSpec | undefined;
  webhookSpec: WebhookChaosSpec | undefined;
}

/**
 * Settings are cached in-process for two seconds, like API keys: a change made in this process
 * applies at once, one made by another instance within two seconds.
 */
const cache = new TtlCache<Loaded>(2_000, 10_000);

/**
 * The position of the next request in each seeded sequence of this process, per merchant: at most
 * 100 sequences a merchant (its least recently used is forgotten first) and 10,000 in all, taken
 * only from merchants over their share, so one merchant's many seeds never cost another its place.
 */
const SEEDS_PER_MERCHANT = 100;
const SEEDS_IN_ALL = 10_000;
const sequences = new SeedSequences(SEEDS_PER_MERCHANT, SEEDS_IN_ALL);

/** Which sequences of a merchant a seed names: its API requests' or its webhook deliveries'. */
export type ChaosStream = 'api' | 'webhook';

/** The position of this request (or delivery) in the merchant's sequence of `seed` (0 first). */
export function nextInSequence(merchantId: string, seed: number, stream: ChaosStream = 'api'): number {
  return sequences.next(merchantId, `${stream}:${seed}`);
}

function restartSequences(merchantId: string): void {
  sequences.restart(merchantId);
}

async function load(db: Db, merchantId: string): Promise<Loaded> {
  const [row] = await db.select().from(chaosSettings).where(eq(chaosSettings.merchantId, merchantId));
  if (!row)
    return {
      setting: { faults: null, webhookFaults: null, updatedAt: null },
      spec: undefined,
      webhookSpec: undefined,
    };
  const faults = row.faults === 'none' ? null : row.faults;
  return {
    setting: { faults, webhookFaults: row.webhookFaults, updatedAt: row.updatedAt },
    spec: faults === null ? undefined : parseChaos(faults, 'faults'),
    webhookSpec:
      row.webhookFaults === null ? undefined : parseWebhookChaos(row.webhookFaults, 'webhook_faults'),
  };
}

/** The merchant's chaos, as the middleware applies it (undefined: none). */
export async function merchantChaos(db: Db, merchantId: string): Promise<ChaosSpec | undefined> {
  return (await cache.get(merchantId, () => load(db, merchantId))).spec;
}

/** The merchant's webhook chaos, as the delivery worker applies it (undefined: none). */
export async function merchantWebhookChaos(
  db: Db,
  merchantId: string,
): Promise<WebhookChaosSpec | undefined> {
  return (await cache.get(merchantId, () => load(db, merchantId))).webhookSpec;
}

type WebhookChaosCounter = (fault: `webhook_${WebhookChaosFault}`, status: string) => void;
const webhookChaosCounters = new Set<WebhookChaosCounter>();

/**
 * Counts injected webhook faults into a metrics registry (the app's /metrics): deliveries are made
 * by the process's worker, outside any request, so the app registers its counter here once.
 */
export function countWebhookChaosInto(counter: WebhookChaosCounter): void {
  webhookChaosCounters.add(counter);
}

/** One injected webhook fault, with the status the receiver answered the attempt that carried it. */
export function countWebhookChaos(fault: WebhookChaosFault, status: number | null): void {
  for (const counter of webhookChaosCounters)
    counter(`webhook_${fault}`, status === null ? 'none' : String(status));
}

export async function getChaosSetting(ctx: ServiceContext): Promise<ChaosSetting> {
  return (await load(dbOf(ctx), ctx.merchant.id)).setting;
}

export interface ChaosChange {
  /** API request faults; null, "" or "none" clears them; absent leaves them as they are. */
  faults?: string | null | undefined;
  /** Webhook delivery faults; null, "" or "none" clears them; absent leaves them as they are. */
  webhookFaults?: string | null | undefined;
}

const blank = (text: string | null) => text === null || text.trim() === '';

/** A field of a change in its canonical text: undefined when left out, "none" when cleared. */
function canonical(text: string | null | undefined, read: (text: string) => string): string | undefined {
  if (text === undefined) return undefined;
  return blank(text) ? 'none' : read(text ?? '');
}

/**
 * Sets (or, with null, "" or "none", clears) the merchant's API and webhook chaos, each stored in
 * its canonical text; a field left out keeps its value. Every seeded sequence of the merchant
 * starts again from its first request or delivery.
 */
export async function setChaosSetting(ctx: ServiceContext, change: ChaosChange): Promise<ChaosSetting> {
  const db = dbOf(ctx);
  const merchantId = ctx.merchant.id;
  // Both texts are read before anything is written: a bad one changes nothing.
  const faults = canonical(change.faults, (text) => formatChaos(parseChaos(text, 'faults')));
  const webhookFaults = canonical(change.webhookFaults, (text) =>
    formatWebhookChaos(parseWebhookChaos(text, 'webhook_faults')),
  );
  const current = (await load(db, merchantId)).setting;
  const nextFaults = faults === undefined ? (current.faults ?? 'none') : faults;
  const nextWebhook = webhookFaults === undefined ? (current.webhookFaults ?? 'none') : webhookFaults;
  let setting: ChaosSetting;
  if (nextFaults === 'none' && nextWebhook === 'none') {
    await db.delete(chaosSettings).where(eq(chaosSettings.merchantId, merchantId));
    setting = { faults: null, webhookFaults: null, updatedAt: null };
  } else {
    const now = ctx.clock.now();
    const values = {
      faults: nextFaults,
      webhookFaults: nextWebhook === 'none' ? null : nextWebhook,
      updatedAt: now,
    };
    await db
      .insert(chaosSettings)
      .values({ merchantId, ...values })
      .onConflictDoUpdate({ target: chaosSettings.merchantId, set: values });
    setting = {
      faults: nextFaults === 'none' ? null : nextFaults,
      webhookFaults: values.webhookFaults,
      updatedAt: now,
    };
  }
  cache.forget(merchantId);
  restartSequences(merchantId);
  return setting;
}
