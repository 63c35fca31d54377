import { defineModule } from '../module.ts';
import { expectedPaymentMachine } from './reconciliation.machine.ts';
import { reconciliationOperations } from './reconciliation.operations.ts';
import { reconciliationRecipes } from './reconciliation.recipes.ts';
import { ExpectedPaymentWire } from './reconciliation.resource.ts';
import { LATE_PAYMENT_JOB, latePaymentJob } from './reconciliation.simulate.ts';
import { expectedPaymentMatches, expectedPayments } from './reconciliation.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { expectedPayment: 'exp' } as const;
type ReconciliationIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends ReconciliationIds {}
}

/** Reconciliation: expected payments matched against the bank movements of the statements. */
export default defineModule({
  name: 'reconciliation',
  tables: [expectedPayments, expectedPaymentMatches],
  ids,
  operations: reconciliationOperations,
  graphql: () => import('./reconciliation.graphql.ts'),
  jobs: { [LATE_PAYMENT_JOB]: latePaymentJob },
  recipes: reconciliationRecipes,
  reset: [
    {
      kind: 'expected_payments',
      table: 'expected_payments',
      order: 270,
      description: 'Expected payments.',
    },
    {
      kind: 'expected_payment_matches',
      table: 'expected_payment_matches',
      order: 280,
      description: 'The movements expected payments matched.',
    },
  ],
  events: [
    {
      object: 'expected_payment',
      machines: [expectedPaymentMachine],
      createdEvent: true,
      wire: ExpectedPaymentWire,
      order: 330,
    },
  ],
});
