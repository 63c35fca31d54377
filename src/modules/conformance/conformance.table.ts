import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { at, createdAt, updatedAt } from '../../db/columns.ts';

/**
 * A webhook-handler conformance run (`whrun_`): the fixed suite of scenarios driven against one
 * endpoint's receiver, and what each found. At most one runs per endpoint at a time.
 */
export const conformanceRuns = pgTable(
  'conformance_runs',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    url: text('url').notNull(),
    state: text('state', { enum: ['running', 'passed', 'failed', 'interrupted'] }).notNull(),
    seed: integer('seed').notNull(),
    timeoutMs: integer('timeout_ms').notNull(),
    /** Each scenario's outcome, in the suite's order (ScenarioResult[], conformance.report.ts). */
    scenarios: jsonb('scenarios').$type<unknown[]>().notNull(),
    /** Real time: when the run started, and when it ended. */
    startedAt: at('started_at').notNull(),
    finishedAt: at('finished_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('conformance_runs_endpoint_idx').on(t.endpointId, t.id),
    index('conformance_runs_merchant_idx').on(t.merchantId, t.id),
    uniqueIndex('conformance_runs_one_running').on(t.endpointId).where(sql`${t.state} = 'running'`),
  ],
);
