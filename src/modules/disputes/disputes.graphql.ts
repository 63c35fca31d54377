import { builder, type GraphQLContext } from '../../graphql/builder.ts';
import { nullIfNotFound, serviceContext } from '../../graphql/context.ts';
import { descriptionOf, graphqlInput, graphqlObject, inputFor } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CardPaymentRef } from '../card-payments/card-payments.graphql.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import { dbOf } from '../context.ts';
import { disputeOperations } from './disputes.operations.ts';
import { Dispute, type DisputeRow } from './disputes.resource.ts';
import { evidenceSchema } from './disputes.schema.ts';
import { disputesByIds, disputesOfPayment, getDispute } from './disputes.service.ts';

// resolveDispute's outcome argument finds it by its values.

export const DisputeRef = graphqlObject<DisputeRow>(Dispute, {
  interfaces: [NodeRef],
  names: { card_payment: 'cardPaymentId' },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    cardPayment: t.field({
      type: CardPaymentRef,
      description: 'The disputed card payment, as it is now.',
      resolve: (row: DisputeRow, _args: unknown, ctx: GraphQLContext) =>
        getCardPayment(serviceContext(ctx), row.cardPaymentId),
    }),
  }),
});

nodeKind('dispute', DisputeRef, disputesByIds);

builder.objectField(CardPaymentRef, 'dispute', (t) =>
  t.field({
    type: DisputeRef,
    nullable: true,
    description: 'Its latest dispute, when the cardholder disputed it (all of them: disputes).',
    resolve: (row, _args, ctx) =>
      row.disputeId ? nullIfNotFound(getDispute(serviceContext(ctx), row.disputeId)) : null,
  }),
);

builder.objectField(CardPaymentRef, 'disputes', (t) =>
  t.field({
    type: [DisputeRef],
    description:
      'All its disputes, oldest first (a Visa or Mastercard payment may have more than one; dispute is the latest).',
    resolve: (row, _args, ctx) => {
      const service = serviceContext(ctx);
      return disputesOfPayment(dbOf(service), service.merchant.id, row.id);
    },
  }),
);

inputFor(
  evidenceSchema,
  graphqlInput('DisputeEvidenceInput', descriptionOf(evidenceSchema) ?? '', evidenceSchema),
);
mountGraphqlOperations(disputeOperations);
