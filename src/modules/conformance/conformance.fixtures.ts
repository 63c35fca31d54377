import { and, eq, inArray } from 'drizzle-orm';
import { events } from '../../db/events.table.ts';
import { withoutFanOut } from '../../db/outbox.ts';
import { payCollection } from '../collections/collections.pay.ts';
import { createCollectionSchema, payCollectionSchema } from '../collections/collections.schema.ts';
import { createCollection } from '../collections/collections.service.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { type EventRow, eventColumns } from '../events/events.service.ts';
import { SCENARIOS, type ScenarioId } from './conformance.scenarios.ts';

/** A scenario's object: a collection the run created and paid, with its two real events. */
export interface Fixture {
  collectionId: string;
  reference: string;
  created: EventRow;
  succeeded: EventRow;
}

/** A small seeded generator (mulberry32): a run with the same seed sends the same amounts and bytes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `cents` as a decimal string (money never travels as a float). */
const decimal = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

const TEST_CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

/**
 * One collection per scenario, created and paid by card (so it has a `collection.created` and a
 * `collection.succeeded` event), in one transaction whose events fan out to no endpoint: the run
 * alone delivers them, to the endpoint it judges. Amounts come from the seed (10.00 to 99.99).
 */
export async function createFixtures(
  ctx: ServiceContext,
  runId: string,
  random: () => number,
  stillWanted: () => Promise<boolean>,
): Promise<Map<ScenarioId, Fixture>> {
  const fixtures = new Map<ScenarioId, Fixture>();
  // A short transaction per collection, not one for all: others' requests go on in between.
  for (const [index, scenario] of SCENARIOS.entries()) {
    // A reset (or a restore) that deleted the run stops it: nothing more is made for it.
    if (!(await stillWanted())) throw new Error('the run was deleted (a sandbox reset or restore)');
    const reference = `${runId}.${String(index + 1).padStart(2, '0')}`;
    const input = createCollectionSchema.parse({
      amount: decimal(1000 + Math.floor(random() * 9000)),
      currency: 'USD',
      reference,
      description: `Webhook conformance run ${runId}: ${scenario.title}`,
      metadata: { conformance_run: runId, scenario: scenario.id },
    });
    const fixture = await withoutFanOut(() =>
      inContextTx({ db: ctx.db }, async (tx) => {
        const txCtx: ServiceContext = { ...ctx, tx };
        const row = await createCollection(txCtx, input);
        await payCollection(txCtx, row.id, payCollectionSchema.parse({ method: 'card', card: TEST_CARD }));
        const rows = await tx
          .select(eventColumns)
          .from(events)
          .where(
            and(
              eq(events.merchantId, ctx.merchant.id),
              eq(events.objectId, row.id),
              inArray(events.type, ['collection.created', 'collection.succeeded']),
            ),
          );
        const created = rows.find((e) => e.type === 'collection.created');
        const succeeded = rows.find((e) => e.type === 'collection.succeeded');
        if (!created || !succeeded)
          throw new Error(`collection ${row.id} lacks its created or succeeded event`);
        return { collectionId: row.id, reference, created, succeeded };
      }),
    );
    fixtures.set(scenario.id, fixture);
  }
  return fixtures;
}
