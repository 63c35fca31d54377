import { defineModule } from '../module.ts';
import { sandboxOperations } from './sandbox.operations.ts';

/** The reset of a merchant's sandbox. */
export default defineModule({
  name: 'sandbox',
  operations: sandboxOperations,
  graphql: () => import('./sandbox.graphql.ts'),
});
