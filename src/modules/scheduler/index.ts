import { defineModule } from '../module.ts';
import { purgeFinishedJobs } from './scheduler.service.ts';

/** Due work: ordered, exactly-once runs (its table is the infrastructure's, src/db/scheduled-jobs.table.ts). */
export default defineModule({
  name: 'scheduler',
  retention: [{ name: 'finished jobs', purge: purgeFinishedJobs }],
  reset: [
    {
      kind: 'scheduled_jobs',
      table: 'scheduled_jobs',
      order: 220,
      description: 'Scheduled clock work (expiries, settlements, …), done or pending.',
    },
  ],
});
