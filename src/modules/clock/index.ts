import { defineModule } from '../module.ts';
import { clockOperations } from './clock.operations.ts';
import { merchantClocks } from './clock.table.ts';

/** Each merchant's simulated clock; an advance runs the work due. */
export default defineModule({
  name: 'clock',
  tables: [merchantClocks],
  operations: clockOperations,
  graphql: () => import('./clock.graphql.ts'),
});
