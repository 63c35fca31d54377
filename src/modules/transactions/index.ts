import { defineModule } from '../module.ts';
import { registerTransactionRoutes } from './transactions.routes.ts';

/** The cross-kind list of transactions, one transaction of any kind and its detail. */
export default defineModule({
  name: 'transactions',
  routes: registerTransactionRoutes,
  graphql: () => import('./transactions.graphql.ts'),
});
