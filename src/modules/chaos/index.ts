import { defineModule } from '../module.ts';
import { registerChaosRoutes } from './chaos.routes.ts';
import { chaosSettings } from './chaos.table.ts';

/** Chaos: a merchant's injected faults, on requests and on webhook deliveries. */
export default defineModule({
  name: 'chaos',
  tables: [chaosSettings],
  routes: registerChaosRoutes,
  graphql: () => import('./chaos.graphql.ts'),
});
