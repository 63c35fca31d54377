import { and, eq } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import { advanceClock, freezeClock } from '../clock/clock.change.ts';
import { CLOCK_CEILING, MAX_ADVANCE_SECONDS } from '../clock/clock.schema.ts';
import { type ClockView, getClock } from '../clock/clock.service.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { type PageOf, pageOf, type StripePage } from './stripe.balance-pages.ts';
import { invalidParam, noSuch } from './stripe.errors.ts';
import { stripeTestClocks } from './stripe.objects.table.ts';

/**
 * Test clocks of the Stripe dialect. A merchant has one clock, which moves everything of it
 * (settlements, funds becoming available, payouts, disputes' due dates): a test clock is a name
 * over that clock. Creating one freezes the merchant's clock at `frozen_time`, advancing it there
 * (running the work due on the way) when it is later; advancing one moves the merchant's clock
 * forward, as the native advance does, before answering, so a test clock is never left
 * `advancing`. Every test clock of a merchant shows the same `frozen_time`: the clock's. The clock
 * only moves forward: a `frozen_time` in its past is refused, but for one less than a minute
 * behind it (a client's rounded-down time, sent a moment later), which freezes it where it stands.
 * Deleting a test clock leaves the merchant's clock where it is.
 */

type TestClockRow = typeof stripeTestClocks.$inferSelect;

/** How far behind the merchant's clock a new test clock's frozen_time may be (it then freezes it where it is). */
const GRACE_MS = 60_000;
/** Stripe deletes a test clock 30 days after it is created (Sandbank keeps it; the field is informative). */
const DELETES_AFTER_SECONDS = 30 * 86_400;

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export function renderTestClock(row: TestClockRow, now: Date) {
  return {
    id: row.id,
    object: 'test_helpers.test_clock',
    created: seconds(row.createdAt),
    deletes_after: seconds(row.createdAt) + DELETES_AFTER_SECONDS,
    frozen_time: seconds(now),
    livemode: false,
    name: row.name,
    status: 'ready',
    status_details: {},
  };
}

/** `frozen_time` as an instant the merchant's clock may go to from `now` (400 naming it otherwise). */
function targetOf(frozenTime: bigint, now: Date, grace: number): Date {
  const target = new Date(Number(frozenTime) * 1000);
  if (target.getTime() < now.getTime() - grace)
    throw invalidParam(
      'frozen_time',
      `The merchant's clock only moves forward: it is ${seconds(now)} (${now.toISOString()}), and frozen_time ${frozenTime} is in its past. A merchant has one clock, which every test clock moves.`,
      'parameter_invalid_integer',
    );
  if (target.getTime() - now.getTime() > MAX_ADVANCE_SECONDS * 1000 || target > CLOCK_CEILING)
    throw invalidParam(
      'frozen_time',
      `frozen_time may be at most ten years after the merchant's clock (${seconds(now)}), and before ${CLOCK_CEILING.toISOString()}.`,
      'parameter_invalid_integer',
    );
  return target;
}

/** Freezes the merchant's clock, then advances it to `target` when that is later (running the work due). */
async function freezeAt(ctx: ServiceContext, target: Date): Promise<ClockView> {
  const frozen = await freezeClock(ctx);
  if (target <= frozen.now) return frozen;
  return advanceClock(ctx, { to: target.toISOString() });
}

export async function createTestClock(
  ctx: ServiceContext,
  input: { frozenTime: bigint; name?: string | undefined },
) {
  const before = (await getClock(ctx)).now;
  const clock = await freezeAt(ctx, targetOf(input.frozenTime, before, GRACE_MS));
  const row: TestClockRow = {
    id: newId('stripeTestClock'),
    merchantId: ctx.merchant.id,
    name: input.name ?? null,
    deleted: false,
    createdAt: before,
    updatedAt: clock.now,
  };
  await dbOf(ctx).insert(stripeTestClocks).values(row);
  return renderTestClock(row, clock.now);
}

async function load(ctx: ServiceContext, id: string): Promise<TestClockRow> {
  // Postgres text cannot hold U+0000: such an id names nothing.
  if (id.includes('\u0000')) throw noSuch('test_clock', id);
  const [row] = await dbOf(ctx)
    .select()
    .from(stripeTestClocks)
    .where(
      and(
        eq(stripeTestClocks.id, id),
        eq(stripeTestClocks.merchantId, ctx.merchant.id),
        eq(stripeTestClocks.deleted, false),
      ),
    );
  if (!row) throw noSuch('test_clock', id);
  return row;
}

export async function retrieveTestClock(ctx: ServiceContext, id: string) {
  return renderTestClock(await load(ctx, id), ctx.clock.now());
}

export async function listTestClocks(
  ctx: ServiceContext,
  page: StripePage,
): Promise<PageOf<ReturnType<typeof renderTestClock>>> {
  const found = await pageOf<TestClockRow>(
    ctx,
    stripeTestClocks,
    { limit: page.limit, after: page.startingAfter, before: page.endingBefore },
    [eq(stripeTestClocks.deleted, false)],
  );
  const now = ctx.clock.now();
  return { data: found.data.map((row) => renderTestClock(row, now)), hasMore: found.hasMore };
}

/** POST …/advance: the merchant's clock moves forward to `frozen_time`, later than where it is. */
export async function advanceTestClock(ctx: ServiceContext, id: string, frozenTime: bigint) {
  const row = await load(ctx, id);
  const now = (await getClock(ctx)).now;
  const target = targetOf(frozenTime, now, 0);
  if (seconds(target) <= seconds(now))
    throw invalidParam(
      'frozen_time',
      `frozen_time must be after the test clock's current frozen_time (${seconds(now)}).`,
      'parameter_invalid_integer',
    );
  const clock = await freezeAt(ctx, target);
  const [moved] = await dbOf(ctx)
    .update(stripeTestClocks)
    .set({ updatedAt: clock.now })
    .where(eq(stripeTestClocks.id, row.id))
    .returning();
  return renderTestClock(moved ?? row, clock.now);
}

/** DELETE: the test clock is gone; the merchant's clock stays where it is (frozen). */
export async function deleteTestClock(ctx: ServiceContext, id: string) {
  const row = await load(ctx, id);
  await dbOf(ctx)
    .update(stripeTestClocks)
    .set({ deleted: true, updatedAt: ctx.clock.now() })
    .where(eq(stripeTestClocks.id, row.id));
  return { id: row.id, object: 'test_helpers.test_clock', deleted: true };
}
