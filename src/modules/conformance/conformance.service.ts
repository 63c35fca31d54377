import { and, count, eq, lt, sql } from 'drizzle-orm';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { getEndpoint } from '../webhooks/webhooks.service.ts';
import { pendingResult, type ScenarioResult } from './conformance.judge.ts';
import {
  DEFAULT_TIMEOUT_MS,
  KEPT_PER_MERCHANT,
  MAX_RUNNING_PER_MERCHANT,
  MAX_TIMEOUT_MS,
  runBoundMs,
} from './conformance.limits.ts';
import { executeRun } from './conformance.run.ts';
import { SCENARIOS } from './conformance.scenarios.ts';
import type { StartRunInput } from './conformance.schema.ts';
import { conformanceRuns } from './conformance.table.ts';

export type ConformanceRunRow = typeof conformanceRuns.$inferSelect;

/** A run still marked running long after its bound: its process stopped (or lost it). */
const abandonedBefore = (now: Date) => new Date(now.getTime() - runBoundMs(MAX_TIMEOUT_MS) - 60_000);

/** Marks the merchant's abandoned runs interrupted (before a start: they hold their endpoint). */
async function interruptAbandoned(ctx: ServiceContext): Promise<void> {
  const now = new Date();
  await ctx.db
    .update(conformanceRuns)
    .set({ state: 'interrupted', finishedAt: now, updatedAt: ctx.clock.now() })
    .where(
      and(
        eq(conformanceRuns.merchantId, ctx.merchant.id),
        eq(conformanceRuns.state, 'running'),
        lt(conformanceRuns.startedAt, abandonedBefore(now)),
      ),
    );
}

/** A run as read: one abandoned is shown (and from then on stored) interrupted. */
async function current(ctx: ServiceContext, row: ConformanceRunRow): Promise<ConformanceRunRow> {
  if (row.state !== 'running' || row.startedAt >= abandonedBefore(new Date())) return row;
  await interruptAbandoned(ctx);
  return { ...row, state: 'interrupted' };
}

function inProgress(message: string): SandbankError {
  return new SandbankError('conformance_run_in_progress', { message });
}

/**
 * Starts a run against the endpoint's URL, signed with its current secret; with `wait`, answers
 * once it has ended. 409 while the endpoint has a run going, or the merchant has its maximum.
 */
export async function startRun(
  ctx: ServiceContext,
  endpointId: string,
  input: StartRunInput,
): Promise<ConformanceRunRow> {
  const endpoint = await getEndpoint(ctx, endpointId);
  await interruptAbandoned(ctx);
  const now = ctx.clock.now();
  const row: ConformanceRunRow = {
    id: newId('conformanceRun'),
    merchantId: ctx.merchant.id,
    endpointId: endpoint.id,
    url: endpoint.url,
    state: 'running',
    seed: input.seed ?? Math.floor(Math.random() * 2 ** 31),
    timeoutMs: input.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    scenarios: SCENARIOS.map(pendingResult),
    startedAt: new Date(),
    finishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  // One start of a merchant at a time (an advisory lock, PGlite has them too): the count and the
  // insert cannot interleave with another start's.
  await inContextTx({ db: ctx.db }, async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`conformance:${ctx.merchant.id}`}))`);
    const [running] = await tx
      .select({ n: count() })
      .from(conformanceRuns)
      .where(and(eq(conformanceRuns.merchantId, ctx.merchant.id), eq(conformanceRuns.state, 'running')));
    if ((running?.n ?? 0) >= MAX_RUNNING_PER_MERCHANT)
      throw inProgress(
        `The merchant has ${MAX_RUNNING_PER_MERCHANT} conformance runs going; wait for one to end.`,
      );
    const inserted = await tx
      .insert(conformanceRuns)
      .values(row)
      .onConflictDoNothing()
      .returning({ id: conformanceRuns.id });
    if (inserted.length === 0)
      throw inProgress(`Endpoint ${endpoint.id} has a conformance run going; wait for it to end.`);
    // The merchant keeps its latest runs only (their collections stay, as any object does).
    await tx.execute(sql`DELETE FROM conformance_runs WHERE merchant_id = ${ctx.merchant.id} AND state <> 'running'
      AND id < (SELECT id FROM conformance_runs WHERE merchant_id = ${ctx.merchant.id} ORDER BY id DESC OFFSET ${KEPT_PER_MERCHANT - 1} LIMIT 1)`);
  });
  const { tx: _callersTx, ...base } = ctx;
  const work = carryOut(base, row, endpoint.secret);
  if (!input.wait) return row;
  await work;
  return getRun(ctx, endpoint.id, row.id);
}

/** Whether the run's row is still there (a reset or a restore deletes it: the run then stops). */
async function stillThere(ctx: ServiceContext, id: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: conformanceRuns.id })
    .from(conformanceRuns)
    .where(eq(conformanceRuns.id, id));
  return row !== undefined;
}

/** The run's work in the background; its results (or why it could not run) stored at the end. */
async function carryOut(ctx: ServiceContext, row: ConformanceRunRow, secret: string): Promise<void> {
  let scenarios: ScenarioResult[];
  let state: ConformanceRunRow['state'];
  try {
    const plan = {
      runId: row.id,
      url: row.url,
      secret,
      timeoutMs: row.timeoutMs,
      seed: row.seed,
      transport: ctx.webhookTransport,
    };
    scenarios = await executeRun(ctx, plan, () => stillThere(ctx, row.id));
    state = scenarios.every((s) => s.outcome === 'passed') ? 'passed' : 'failed';
  } catch (error) {
    scenarios = interrupted(
      `The run could not go on: ${error instanceof Error ? error.message : String(error)}`,
    );
    state = 'interrupted';
  }
  const save = (values: Pick<ConformanceRunRow, 'state' | 'scenarios'>) =>
    ctx.db
      .update(conformanceRuns)
      .set({ ...values, finishedAt: new Date(), updatedAt: ctx.clock.now() })
      .where(eq(conformanceRuns.id, row.id));
  try {
    await save({ state, scenarios });
  } catch (error) {
    // The report could not be stored: the run ends interrupted, saying why, so the endpoint is free.
    const why = `The report could not be stored: ${error instanceof Error ? error.message : String(error)}`;
    await save({ state: 'interrupted', scenarios: interrupted(why) }).catch(() => undefined);
  }
}

const interrupted = (why: string): ScenarioResult[] =>
  SCENARIOS.map((spec) => ({ ...pendingResult(spec), explanation: why.slice(0, 1000) }));

function notFound(id: string): SandbankError {
  return new SandbankError('resource_not_found', {
    message: `No conformance run ${id.slice(0, 100)} on this endpoint.`,
  });
}

export async function getRun(
  ctx: ServiceContext,
  endpointId: string,
  id: string,
): Promise<ConformanceRunRow> {
  const [row] = await dbOf(ctx)
    .select()
    .from(conformanceRuns)
    .where(
      and(
        eq(conformanceRuns.id, id),
        eq(conformanceRuns.merchantId, ctx.merchant.id),
        eq(conformanceRuns.endpointId, endpointId),
      ),
    );
  if (!row) throw notFound(id);
  return current(ctx, row);
}

export async function listRuns(
  ctx: ServiceContext,
  endpointId: string,
  query: ListQuery,
): Promise<Page<ConformanceRunRow>> {
  await getEndpoint(ctx, endpointId);
  const page = await merchantPage<ConformanceRunRow>(ctx, conformanceRuns, query, [
    eq(conformanceRuns.endpointId, endpointId),
  ]);
  const data: ConformanceRunRow[] = [];
  for (const row of page.data) data.push(await current(ctx, row));
  return { ...page, data };
}

/** The merchant's runs among `ids` (GraphQL's nodes(ids:)). */
export async function runsByIds(ctx: ServiceContext, ids: string[]): Promise<ConformanceRunRow[]> {
  const rows = await merchantRowsByIds<ConformanceRunRow>(ctx, conformanceRuns, ids);
  const read: ConformanceRunRow[] = [];
  for (const row of rows) read.push(await current(ctx, row));
  return read;
}
