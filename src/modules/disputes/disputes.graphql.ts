import { builder, type GraphQLContext } from '../../graphql/builder.ts';
import { nullIfNotFound, serviceContext } from '../../graphql/context.ts';
import { descriptionOf, graphqlInput, graphqlObject, inputFor } from '../../graphql/derive.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CardPaymentRef } from '../card-payments/card-payments.graphql.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { DisputeState } from './disputes.machine.ts';
import { disputeOperations } from './disputes.operations.ts';
import { Dispute, type DisputeRow, type OutcomeReason } from './disputes.resource.ts';
import { type DisputeReason, evidenceSchema } from './disputes.schema.ts';
import { disputesByIds, getDispute } from './disputes.service.ts';

const DisputeStateEnum = describedEnum('DisputeState', 'Where a dispute stands.', {
  warning_needs_response: 'An inquiry: the issuer asks for information; nothing is debited.',
  warning_under_review: 'An inquiry whose evidence the issuer is reviewing.',
  warning_closed: 'An inquiry closed without a chargeback (final).',
  needs_response: 'A chargeback: the amount and fee are debited; evidence is due by evidenceDueBy.',
  under_review: 'A chargeback whose evidence the issuer is reviewing.',
  won: 'Decided for the merchant: the amount and the fee came back. Final.',
  lost: 'Decided for the cardholder: the debit stands. Final.',
} satisfies Record<DisputeState, string>);

const DisputeReasonEnum = describedEnum('DisputeReason', 'Why the cardholder disputes.', {
  fraudulent: 'The cardholder says they did not make the payment.',
  product_not_received: 'The cardholder says the goods or service never arrived.',
  duplicate: 'The cardholder says they were charged twice.',
  subscription_canceled: 'The cardholder says the subscription was canceled before.',
  product_unacceptable: 'The cardholder says the goods were defective or not as described.',
  credit_not_processed: 'The cardholder says a promised refund never came.',
  general: 'Any other reason (also an inquiry opened by a magic card).',
  unrecognized: 'The cardholder does not recognize the payment.',
} satisfies Record<DisputeReason, string>);

const OutcomeReasonEnum = describedEnum('DisputeOutcomeReason', 'How a closed dispute was decided.', {
  evidence: 'The review of the submitted evidence.',
  accepted: 'The merchant closed (accepted) it.',
  no_response: 'No evidence was submitted by the due date.',
  simulated: 'simulateDisputeResolution (POST /v1/simulate/disputes/{id}/resolve).',
} satisfies Record<OutcomeReason, string>);

// resolveDispute's outcome argument finds it by its values.
describedEnum('DisputeOutcome', 'What the issuer decides.', {
  won: 'For the merchant (an inquiry: closed).',
  lost: 'For the cardholder (an inquiry: escalated to a chargeback).',
});

export const DisputeRef = graphqlObject<DisputeRow>(Dispute, {
  interfaces: [NodeRef],
  names: { card_payment: 'cardPaymentId' },
  enums: { state: DisputeStateEnum, reason: DisputeReasonEnum, outcome_reason: OutcomeReasonEnum },
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
    description: 'Its dispute, when the cardholder disputed it.',
    resolve: (row, _args, ctx) =>
      row.disputeId ? nullIfNotFound(getDispute(serviceContext(ctx), row.disputeId)) : null,
  }),
);

inputFor(
  evidenceSchema,
  graphqlInput('DisputeEvidenceInput', descriptionOf(evidenceSchema) ?? '', evidenceSchema),
);
mountGraphqlOperations(disputeOperations);
