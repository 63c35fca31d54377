import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { type Db, type Executor, queryRows, type Tx } from '../../db/client.ts';
import { merchantRowsByIds } from '../../db/pages.ts';
import { merchantNowExpression, purgePerMerchant } from '../../db/per-merchant.ts';
import { scheduledJobs } from '../../db/scheduled-jobs.table.ts';
import { isTransactionConflict } from '../../db/tx.ts';
import { type Clock, FixedClock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import {
  type JobHandler,
  type JobRow,
  type MerchantRef,
  type ProcessContext,
  processContext,
  type ServiceContext,
} from '../context.ts';

/** A row of due work, and what a kind of it does: their types live with the service context. */
export type { JobHandler, JobRow };

const handlers = new Map<string, JobHandler>();

/**
 * What each kind of due work does: each module's manifest names its job kinds and their handlers,
 * registered from the list of modules (registerModules, src/modules/index.ts).
 */
export function registerJobHandler(kind: string, handler: JobHandler): void {
  handlers.set(kind, handler);
}

export interface ScheduleInput {
  merchantId: string;
  kind: string;
  objectId: string;
  dueAt: Date;
  payload?: Record<string, string>;
  createdAt: Date;
}

/** Schedules work in the caller's transaction, so it exists exactly when the change that needs it commits. */
export async function scheduleJob(exec: Executor, input: ScheduleInput): Promise<string> {
  const values = jobValues(input);
  await exec.insert(scheduledJobs).values(values);
  return values.id;
}

/** A new job's row (pending, not yet tried), for callers that insert jobs in bulk. */
export function jobValues(input: ScheduleInput): typeof scheduledJobs.$inferInsert & { id: string } {
  return {
    id: newId('job'),
    merchantId: input.merchantId,
    kind: input.kind,
    objectId: input.objectId,
    payload: input.payload ?? {},
    dueAt: input.dueAt,
    state: 'pending',
    attempts: 0,
    createdAt: input.createdAt,
  };
}

export interface RanJob {
  id: string;
  kind: string;
  objectId: string;
  dueAt: Date;
  state: 'done' | 'failed';
  error: string | null;
}

/** A piece of due work as the API shows it: RanJob's shape, in any state (pending too). */
export interface DueWork extends Omit<RanJob, 'state'> {
  state: JobRow['state'];
}

/** The merchant's due work among `ids` (GraphQL's nodes(ids:)). */
export async function jobsByIds(ctx: ServiceContext, ids: string[]): Promise<DueWork[]> {
  const jobs = await merchantRowsByIds<JobRow>(ctx, scheduledJobs, ids);
  return jobs.map((job) => ({ ...ranJob(job, 'done', job.lastError), state: job.state }));
}

async function nextDueJob(tx: Tx, merchantId: string, until: Date): Promise<JobRow | undefined> {
  const [job] = await tx
    .select()
    .from(scheduledJobs)
    .where(
      and(
        eq(scheduledJobs.state, 'pending'),
        eq(scheduledJobs.merchantId, merchantId),
        lte(scheduledJobs.dueAt, until),
      ),
    )
    .orderBy(asc(scheduledJobs.dueAt), asc(scheduledJobs.id))
    .limit(1)
    .for('update', { skipLocked: true });
  return job;
}

/**
 * How much due work one transaction runs at most: a batch ends after this many jobs or once it has
 * run this long, whichever comes first, and the next batch is a new transaction. Between batches
 * other merchants' statements run (on PGlite, one connection, they would otherwise wait for the
 * whole window).
 */
export interface JobBudget {
  jobs: number;
  ms: number;
}

export const JOB_BATCH: JobBudget = { jobs: 50, ms: 25 };

/**
 * Runs a merchant's due work up to `until`, in due-time order, including work that the work itself
 * schedules inside the window. The caller holds the merchant's clock row lock (see clock.service),
 * so two runners never interleave one merchant's work; each job is marked done in the savepoint
 * that did it, so it runs exactly once. A failing job is marked failed and the run goes on; a job
 * that loses a deadlock fails the whole run instead, which the transaction helper reruns (db/tx.ts).
 * With a `budget`, the run stops after that much work; `more` then says whether due work is left.
 */
export async function runDueJobs(
  tx: Tx,
  merchant: MerchantRef,
  until: Date,
  base: ProcessContext,
  budget?: JobBudget,
): Promise<{ ran: RanJob[]; more: boolean }> {
  const ran: RanJob[] = [];
  const started = performance.now();
  for (;;) {
    const job = await nextDueJob(tx, merchant.id, until);
    if (!job) return { ran, more: false };
    if (budget && ran.length > 0 && (ran.length >= budget.jobs || performance.now() - started >= budget.ms))
      return { ran, more: true };
    ran.push(await runJob(tx, merchant, job, base));
  }
}

function ranJob(job: JobRow, state: RanJob['state'], error: string | null): RanJob {
  return { id: job.id, kind: job.kind, objectId: job.objectId, dueAt: job.dueAt, state, error };
}

async function runJob(tx: Tx, merchant: MerchantRef, job: JobRow, base: ProcessContext): Promise<RanJob> {
  const clock: Clock = new FixedClock(job.dueAt);
  const handler = handlers.get(job.kind);
  try {
    if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
    await tx.transaction(async (savepoint) => {
      await handler({ ...processContext(base), tx: savepoint, clock, merchant }, job);
      await savepoint
        .update(scheduledJobs)
        .set({ state: 'done', attempts: job.attempts + 1, finishedAt: job.dueAt })
        .where(eq(scheduledJobs.id, job.id));
    });
    return ranJob(job, 'done', null);
  } catch (error) {
    // A deadlock is no fault of the job: the whole run is retried (db/tx.ts), not the job failed.
    if (isTransactionConflict(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    await tx
      .update(scheduledJobs)
      .set({
        state: 'failed',
        attempts: job.attempts + 1,
        lastError: message.slice(0, 1000),
        finishedAt: job.dueAt,
      })
      .where(eq(scheduledJobs.id, job.id));
    return ranJob(job, 'failed', message);
  }
}

/** Finished (done or failed) jobs are kept 30 days of their merchant's clock after they ran. */
export const FINISHED_JOB_RETENTION_DAYS = 30;

/** Retention: deletes up to `limit` jobs that finished FINISHED_JOB_RETENTION_DAYS ago or more. */
export function purgeFinishedJobs(db: Db, realNow: Date, limit: number): Promise<number> {
  return purgePerMerchant(db, realNow, limit, {
    table: 'scheduled_jobs',
    where: (now) =>
      sql`t.state <> 'pending' AND t.finished_at <= ${now} - make_interval(days => ${FINISHED_JOB_RETENTION_DAYS})`,
  });
}

/** Merchants that have work due by their own clock at the real instant `realNow`. */
export async function merchantsWithDueWork(db: Db, realNow: Date, limit: number): Promise<string[]> {
  const rows = await queryRows<{ merchant_id: string }>(
    db,
    sql`
    SELECT DISTINCT j.merchant_id AS merchant_id
    FROM scheduled_jobs j
    LEFT JOIN merchant_clocks c ON c.merchant_id = j.merchant_id
    WHERE j.state = 'pending'
      AND j.due_at <= ${merchantNowExpression(realNow)}
    LIMIT ${limit}`,
  );
  return rows.map((row) => row.merchant_id);
}
