import { defineModule } from '../module.ts';
import { counterpartyOperations } from './counterparties.operations.ts';
import { counterparties } from './counterparties.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { counterparty: 'cpty' } as const;
type CounterpartiesIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends CounterpartiesIds {}
}

/** Saved bank accounts to pay, and the corrections they received. */
export default defineModule({
  name: 'counterparties',
  tables: [counterparties],
  ids,
  operations: counterpartyOperations,
  graphql: () => import('./counterparties.graphql.ts'),
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
