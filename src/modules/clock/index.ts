import { defineModule } from '../module.ts';
import { registerClockRoutes } from './clock.routes.ts';
import { merchantClocks } from './clock.table.ts';

/** Each merchant's simulated clock; an advance runs the work due. */
export default defineModule({
  name: 'clock',
  tables: [merchantClocks],
  routes: registerClockRoutes,
  graphql: () => import('./clock.graphql.ts'),
});
