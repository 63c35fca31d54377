import { defineModule } from '../module.ts';
import { counterpartyOperations } from './counterparties.operations.ts';
import { counterpartyRecipes } from './counterparties.recipes.ts';
import { CounterpartyWire } from './counterparties.resource.ts';
import { counterparties } from './counterparties.table.ts';
import { VERIFICATION_JOB, verificationJob } from './counterparties.verification.ts';
import { counterpartyVerificationMachine } from './counterparties.verification-rules.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { counterparty: 'cpty' } as const;
type CounterpartiesIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends CounterpartiesIds {}
}

/** Saved bank accounts to pay, the corrections they received, and their account verification. */
export default defineModule({
  name: 'counterparties',
  tables: [counterparties],
  ids,
  operations: counterpartyOperations,
  graphql: () => import('./counterparties.graphql.ts'),
  jobs: { [VERIFICATION_JOB]: verificationJob },
  recipes: counterpartyRecipes,
  events: [
    {
      object: 'counterparty',
      machines: [counterpartyVerificationMachine],
      createdEvent: false,
      wire: CounterpartyWire,
      order: 310,
    },
  ],
  reset: [
    {
      kind: 'counterparties',
      table: 'counterparties',
      order: 100,
      lock: true,
      description: 'Saved counterparties (bank accounts) and the corrections they received.',
    },
  ],
});
