import { defineModule } from '../module.ts';
import { chaosOperations } from './chaos.operations.ts';
import { chaosSettings } from './chaos.table.ts';

/** Chaos: a merchant's injected faults, on requests and on webhook deliveries. */
export default defineModule({
  name: 'chaos',
  tables: [chaosSettings],
  operations: chaosOperations,
  graphql: () => import('./chaos.graphql.ts'),
});
