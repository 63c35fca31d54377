import { defineModule } from '../module.ts';
import { registerCounterpartyRoutes } from './counterparties.routes.ts';
import { counterparties } from './counterparties.table.ts';

/** Saved bank accounts to pay, and the corrections they received. */
export default defineModule({
  name: 'counterparties',
  tables: [counterparties],
  ids: ['counterparty'],
  routes: registerCounterpartyRoutes,
  graphql: () => import('./counterparties.graphql.ts'),
});
