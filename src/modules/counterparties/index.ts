import { defineModule } from '../module.ts';
import { counterpartyOperations } from './counterparties.operations.ts';
import { counterparties } from './counterparties.table.ts';

/** Saved bank accounts to pay, and the corrections they received. */
export default defineModule({
  name: 'counterparties',
  tables: [counterparties],
  ids: ['counterparty'],
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
