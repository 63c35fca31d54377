import { defineModule } from '../module.ts';
import { achFileOperations } from './ach-files.operations.ts';

/** The merchant's ACH entries as NACHA files: sent per window, returns and received per banking day. */
export default defineModule({
  name: 'ach-files',
  operations: achFileOperations,
  graphql: () => import('./ach-files.graphql.ts'),
});
