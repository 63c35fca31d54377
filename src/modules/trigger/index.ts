import { defineModule } from '../module.ts';
import { registerTriggerRoutes } from './trigger.routes.ts';

/** Trigger: every module's recipes, run on demand. */
export default defineModule({
  name: 'trigger',
  routes: registerTriggerRoutes,
  graphql: () => import('./trigger.graphql.ts'),
});
