import { defineModule } from '../module.ts';
import { transactionOperations } from './transactions.operations.ts';

/** The cross-kind list of transactions, one transaction of any kind and its detail. */
export default defineModule({
  name: 'transactions',
  operations: transactionOperations,
  graphql: () => import('./transactions.graphql.ts'),
});
