import { builder } from '../../graphql/builder.ts';
import {
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { IDEMPOTENCY_KEY } from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { CardPaymentRef } from '../card-payments/card-payments.graphql.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { DisputeState } from './disputes.machine.ts';
import type { DisputeRow, OutcomeReason } from './disputes.resource.ts';
import {
  type DisputeReason,
  EVIDENCE_FIELDS,
  type EvidenceField,
  resolveDisputeSchema,
  simulateDisputeFieldCodes,
  simulateDisputeSchema,
  updateDisputeSchema,
} from './disputes.schema.ts';
import {
  closeDispute,
  disputesByIds,
  getDispute,
  listDisputes,
  resolveDispute,
  simulateDispute,
  updateDispute,
} from './disputes.service.ts';

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

const DisputeOutcomeEnum = describedEnum('DisputeOutcome', 'What the issuer decides.', {
  won: 'For the merchant (an inquiry: closed).',
  lost: 'For the cardholder (an inquiry: escalated to a chargeback).',
});

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

export const DisputeRef = builder.objectRef<DisputeRow>('Dispute').implement({
  description:
    'A dispute of a captured card payment: a chargeback (needs_response → under_review → won | lost) or an inquiry (warning_needs_response → warning_under_review → warning_closed, or escalated to needs_response).',
  interfaces: [NodeRef],
  fields: (t) => ({
    cardPaymentId: t.exposeString('cardPaymentId', { description: 'The id of the disputed card payment.' }),
    cardPayment: t.field({
      type: CardPaymentRef,
      description: 'The disputed card payment, as it is now.',
      resolve: (row, _args, ctx) => getCardPayment(serviceContext(ctx), row.cardPaymentId),
    }),
    state: t.field({ type: DisputeStateEnum, description: 'Where it stands.', resolve: (row) => row.state }),
    amount: t.field({
      type: MoneyRef,
      description: 'How much the cardholder disputes.',
      resolve: (row) => money(row.amount, row.currency),
    }),
    fee: t.field({
      type: MoneyRef,
      description: 'The dispute fee debited with the amount (0 while an inquiry).',
      resolve: (row) => money(row.fee, row.currency),
    }),
    reason: t.field({
      type: DisputeReasonEnum,
      description: 'Why the cardholder disputes.',
      resolve: (row) => row.reason as DisputeReason,
    }),
    inquiry: t.exposeBoolean('inquiry', { description: 'Whether it was opened as an inquiry.' }),
    evidence: t.field({
      type: 'JSONObject',
      description: 'The evidence saved so far, by field (snake_case names, as REST).',
      resolve: (row) => row.evidence,
    }),
    evidenceDueBy: t.field({
      type: 'DateTime',
      description: 'When the evidence is due, clock time.',
      resolve: (row) => row.evidenceDueBy,
    }),
    evidenceSubmittedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the evidence was submitted, clock time.',
      resolve: (row) => row.evidenceSubmittedAt,
    }),
    reviewEndsAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'While under review: when the issuer decides, clock time.',
      resolve: (row) => row.reviewEndsAt,
    }),
    outcomeReason: t.field({
      type: OutcomeReasonEnum,
      nullable: true,
      description: 'How a closed dispute was decided.',
      resolve: (row) => row.outcomeReason as OutcomeReason | null,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it opened, clock time.',
      resolve: (row) => row.createdAt,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When it last changed, clock time.',
      resolve: (row) => row.updatedAt,
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

const EVIDENCE_LABELS: Record<EvidenceField, string> = {
  product_description: 'What was sold.',
  customer_name: "The customer's name.",
  customer_email_address: "The customer's email address.",
  customer_communication: 'Messages with the customer.',
  shipping_tracking_number: 'The tracking number of the shipment.',
  refund_policy: 'The refund policy the customer accepted.',
  cancellation_rebuttal: 'Why the subscription was not canceled.',
  duplicate_charge_explanation: 'Why the payments are not duplicates.',
  uncategorized_text: 'Anything else.',
};

const camel = (name: string) => name.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());

const DisputeEvidenceInput = builder.inputType('DisputeEvidenceInput', {
  description:
    'Text evidence (each field at most 5,000 characters). In this sandbox `winning_evidence` in any field wins the review, `losing_evidence` loses it.',
  fields: (t) =>
    Object.fromEntries(
      EVIDENCE_FIELDS.map((field) => [camel(field), t.string({ description: EVIDENCE_LABELS[field] })]),
    ),
});

builder.queryFields((t) => ({
  dispute: t.field({
    type: DisputeRef,
    nullable: true,
    description: 'A dispute by its id (GET /v1/disputes/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The dispute's id (dp_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getDispute(serviceContext(ctx), String(args.id))),
  }),
  disputes: t.connection({
    type: DisputeRef,
    description: 'Disputes, newest first (first: 1-100, default 20).',
    args: { cardPaymentId: t.arg.string({ description: 'Only the dispute of this card payment.' }) },
    resolve: async (_root, args, ctx) => {
      const query = { ...listQueryOf(args), card_payment: args.cardPaymentId ?? undefined };
      return toConnection(await listDisputes(serviceContext(ctx), query), args);
    },
  }),
}));

const disputeMutation = mutationsOf(getDispute);
const updateBody = wireInput('updateDispute', updateDisputeSchema, undefined, { path: ['id'] });
const simulateBody = wireInput(
  'simulateCardPaymentDispute',
  simulateDisputeSchema,
  simulateDisputeFieldCodes,
  {
    path: ['id'],
  },
);
const resolveBody = wireInput('resolveDispute', resolveDisputeSchema, undefined, { path: ['id'] });

builder.mutationFields((t) => ({
  updateDispute: t.field({
    type: DisputeRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/disputes/{id}: save evidence and, unless submit is false, submit it (the dispute goes under review).',
    args: {
      id: t.arg.id({ required: true, description: "The dispute's id." }),
      evidence: t.arg({
        type: DisputeEvidenceInput,
        description: 'Evidence to save (merged with what is saved).',
      }),
      submit: t.arg.boolean({ description: 'Submit for review (default true); false only saves.' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = updateBody.body(args);
      return disputeMutation(ctx, 'updateDispute', args.idempotencyKey, { id: args.id, ...body }, (svc) =>
        updateDispute(svc, String(args.id), updateBody.parse(body)),
      );
    },
  }),
  closeDispute: t.field({
    type: DisputeRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/disputes/{id}/close: accept the dispute (a chargeback is lost, an inquiry closed).',
    args: {
      id: t.arg.id({ required: true, description: "The dispute's id." }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) =>
      disputeMutation(ctx, 'closeDispute', args.idempotencyKey, { id: args.id }, (svc) =>
        closeDispute(svc, String(args.id)),
      ),
  }),
  simulateCardPaymentDispute: t.field({
    type: DisputeRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/card_payments/{id}/dispute: the cardholder disputes a captured payment.',
    args: {
      id: t.arg.id({ required: true, description: "The card payment's id (captured)." }),
      reason: t.arg({ type: DisputeReasonEnum, description: 'Why (default general).' }),
      amount: t.arg({ type: 'Decimal', description: 'Default: all that is captured and not refunded.' }),
      inquiry: t.arg.boolean({ description: 'Open an inquiry (warning_*) instead of a chargeback.' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = simulateBody.body(args);
      return disputeMutation(
        ctx,
        'simulateCardPaymentDispute',
        args.idempotencyKey,
        { id: args.id, ...body },
        (svc) => simulateDispute(svc, String(args.id), simulateBody.parse(body)),
      );
    },
  }),
  resolveDispute: t.field({
    type: DisputeRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/disputes/{id}/resolve: the issuer decides now.',
    args: {
      id: t.arg.id({ required: true, description: "The dispute's id." }),
      outcome: t.arg({ type: DisputeOutcomeEnum, required: true, description: 'won or lost.' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = resolveBody.body(args);
      return disputeMutation(ctx, 'resolveDispute', args.idempotencyKey, { id: args.id, ...body }, (svc) =>
        resolveDispute(svc, String(args.id), resolveBody.parse(body)),
      );
    },
  }),
}));
