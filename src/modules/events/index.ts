import { defineModule } from '../module.ts';

/**
 * Events: the outbox's rows read back (its table is the infrastructure's, src/db/events.table.ts),
 * the live bus and the subscriptions. GET /v1/events is declared with the webhooks' operations.
 */
export default defineModule({
  name: 'events',
  graphql: () => import('./events.graphql.ts'),
  reset: [{ kind: 'events', table: 'events', order: 190, description: 'Events.' }],
});
