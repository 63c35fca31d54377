import { defineModule } from '../module.ts';
import { triggerOperations } from './trigger.operations.ts';

/** Trigger: every module's recipes, run on demand. */
export default defineModule({
  name: 'trigger',
  operations: triggerOperations,
  graphql: () => import('./trigger.graphql.ts'),
});
