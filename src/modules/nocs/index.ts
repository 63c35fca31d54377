import { defineModule } from '../module.ts';
import { nocOperations } from './nocs.operations.ts';
import { nocRecipes } from './nocs.recipes.ts';
import { nocJob, TRANSFER_NOC_JOB } from './nocs.service.ts';

/** Notifications of change on ACH transfers: received, refused, applied to counterparties. */
export default defineModule({
  name: 'nocs',
  operations: nocOperations,
  graphql: () => import('./nocs.graphql.ts'),
  jobs: { [TRANSFER_NOC_JOB]: nocJob },
  recipes: nocRecipes,
});
