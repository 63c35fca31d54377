import { defineModule } from '../module.ts';
import { registerSandboxRoutes } from './sandbox.routes.ts';

/** The reset of a merchant's sandbox. */
export default defineModule({
  name: 'sandbox',
  routes: registerSandboxRoutes,
  graphql: () => import('./sandbox.graphql.ts'),
});
