import { defineModule } from '../module.ts';
import { conformanceOperations } from './conformance.operations.ts';
import { conformanceRuns } from './conformance.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { conformanceRun: 'whrun' } as const;
type ConformanceIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends ConformanceIds {}
}

/** Webhook-handler conformance runs: a fixed suite of deliveries that judges the merchant's receiver. */
export default defineModule({
  name: 'conformance',
  tables: [conformanceRuns],
  ids,
  operations: conformanceOperations,
  graphql: () => import('./conformance.graphql.ts'),
  reset: [
    {
      kind: 'webhook_conformance_runs',
      table: 'conformance_runs',
      order: 290,
      description: 'Webhook conformance runs and their reports.',
    },
  ],
});
