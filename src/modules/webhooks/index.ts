import { defineModule } from '../module.ts';
import { webhookDeliveriesCte } from './webhooks.fan-out.ts';
import { eventOperations, webhookOperations } from './webhooks.operations.ts';
import { WebhookTestObjectWire } from './webhooks.payloads.ts';
import { webhookRecipes } from './webhooks.recipes.ts';
import { purgeEndedDeliveries, purgeOldAttempts } from './webhooks.retention.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { webhookEndpoint: 'we', webhookDelivery: 'wd', webhookAttempt: 'wa' } as const;
type WebhooksIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends WebhooksIds {}
}

/** Webhooks: endpoints, deliveries and their attempts, signing, the delivery worker. */
export default defineModule({
  name: 'webhooks',
  tables: [webhookEndpoints, webhookDeliveries, webhookAttempts],
  ids,
  operations: [...eventOperations, ...webhookOperations],
  graphql: () => import('./webhooks.graphql.ts'),
  retention: [
    { name: 'webhook attempts', purge: purgeOldAttempts },
    { name: 'ended webhook deliveries', purge: purgeEndedDeliveries },
  ],
  eventFanOut: webhookDeliveriesCte,
  recipes: webhookRecipes,
  reset: [
    {
      kind: 'webhook_deliveries',
      table: 'webhook_deliveries',
      order: 200,
      lock: true,
      description: 'Webhook deliveries (pending ones are never sent).',
    },
    {
      kind: 'webhook_attempts',
      table: 'webhook_attempts',
      order: 210,
      description: 'Logged webhook delivery attempts.',
    },
  ],
  events: [
    {
      object: 'webhook',
      machines: [],
      createdEvent: false,
      also: ['test'],
      wire: WebhookTestObjectWire,
      order: 140,
    },
  ],
});
