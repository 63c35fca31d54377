import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './errors.ts';
import './node.ts';
import '../modules/collections/collections.graphql.ts';
import '../modules/card-payments/card-payments.graphql.ts';
import '../modules/disputes/disputes.graphql.ts';
import '../modules/transfers/transfers.graphql.ts';
import '../modules/inbound-transfers/inbound-transfers.graphql.ts';
import '../modules/counterparties/counterparties.graphql.ts';
import '../modules/nocs/nocs.graphql.ts';
import '../modules/issuing/issuing.graphql.ts';
import '../modules/fx/fx.graphql.ts';
import '../modules/transactions/transactions.graphql.ts';
import '../modules/ledger/ledger.graphql.ts';
import '../modules/clock/clock.graphql.ts';
import '../modules/sandbox/sandbox.graphql.ts';
import '../modules/chaos/chaos.graphql.ts';
import '../modules/fixtures/fixtures.graphql.ts';
import '../modules/trigger/trigger.graphql.ts';
import '../modules/webhooks/webhooks.graphql.ts';
import '../modules/merchants/merchants.graphql.ts';
import './subscriptions.ts';
import '../modules/events/events.graphql.ts';

/** The whole schema: every module's *.graphql.ts registers its types on the one builder. */
export const schema = builder.toSchema({ sortSchema: true });

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
