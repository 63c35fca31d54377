import { defineModule } from '../module.ts';
import { requestLogOperations } from './request-log.operations.ts';
import { purgeOldRequests } from './request-log.retention.ts';
import { requestLogs } from './request-log.table.ts';

/** The request log: every API request of a merchant, kept for a window, with filters and assertions. */
export default defineModule({
  name: 'request-log',
  tables: [requestLogs],
  operations: requestLogOperations,
  graphql: () => import('./request-log.graphql.ts'),
  retention: [{ name: 'request log', purge: purgeOldRequests }],
  reset: [
    {
      kind: 'request_logs',
      table: 'request_logs',
      order: 400,
      description: "The request log's entries (the reset's own request is logged after it).",
    },
  ],
});
