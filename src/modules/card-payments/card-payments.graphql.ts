import type { z } from 'zod';
import { builder, type GraphQLContext } from '../../graphql/builder.ts';
import {
  idempotentMutation,
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import {
  CardBrandEnum,
  describedEnum,
  ThreeDSecureOutcomeEnum,
  type ThreeDSecureStatus,
  ThreeDSecureStatusEnum,
} from '../../graphql/enums.ts';
import { CardInput } from '../../graphql/inputs.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import {
  DESCRIPTION,
  IDEMPOTENCY_KEY,
  METADATA,
  REFERENCE,
  STORED_DESCRIPTION,
  STORED_METADATA,
} from '../../graphql/texts.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { type WireMapper, wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import type { CardBrand } from '../cards/card-numbers.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import type { ServiceContext } from '../context.ts';
import { createCardPayment } from './card-payments.authorize.ts';
import { captureCardPayment, voidCardPayment } from './card-payments.capture.ts';
import { cardPaymentMachine, type RefundState } from './card-payments.machine.ts';
import {
  cardPaymentsByIds,
  getCardPayment,
  getRefund,
  listCardPayments,
  refundsByIds,
  tokensByIds,
} from './card-payments.read.ts';
import { refundCardPayment } from './card-payments.refund.ts';
import {
  challengePageUrl,
  earlyFraudWarningActionable,
  type RefundRow,
  type TokenRow,
} from './card-payments.resource.ts';
import type { CardPaymentDetail } from './card-payments.rows.ts';
import * as bodies from './card-payments.schema.ts';
import { completeCardPayment3ds } from './card-payments.three-ds.ts';
import { createToken } from './card-payments.tokens.ts';

const RefundStateEnum = describedEnum('RefundState', 'Where a refund stands.', {
  pending: 'Asked for; the card network has not answered yet.',
  succeeded: 'The money went back to the card.',
  failed: 'The refund did not go through (failureReason says why); nothing left the balance.',
} satisfies Record<RefundState, string>);

type RefundReason = NonNullable<bodies.RefundInput['reason']>;

const RefundReasonEnum = describedEnum('RefundReason', 'Why the merchant refunds.', {
  duplicate: 'The payment was taken twice.',
  fraudulent: 'The payment was fraudulent.',
  requested_by_customer: 'The customer asked for their money back.',
} satisfies Record<RefundReason, string>);

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

const RefundRef = builder.objectRef<RefundRow>('Refund').implement({
  description: 'A refund of a captured card payment: pending → succeeded | failed.',
  interfaces: [NodeRef],
  fields: (t) => ({
    cardPaymentId: t.exposeString('cardPaymentId', { description: 'The id of the card payment it refunds.' }),
    state: t.field({ type: RefundStateEnum, description: 'Where it stands.', resolve: (row) => row.state }),
    amount: t.field({
      type: MoneyRef,
      description: 'How much goes back to the card.',
      resolve: (row) => money(row.amount, row.currency),
    }),
    reason: t.field({
      type: RefundReasonEnum,
      nullable: true,
      description: 'Why the merchant refunds, when it said.',
      resolve: (row) => row.reason as RefundReason | null,
    }),
    failureReason: t.exposeString('failureReason', {
      nullable: true,
      description: 'Why the refund failed (state failed).',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was asked for, clock time.',
      resolve: (row) => row.createdAt,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When it last changed, clock time.',
      resolve: (row) => row.updatedAt,
    }),
  }),
});

const EarlyFraudWarningRef = builder.objectRef<CardPaymentDetail>('EarlyFraudWarning').implement({
  description: "An issuer's early fraud warning about a card payment: a dispute may follow; it is not one.",
  fields: (t) => ({
    fraudType: t.string({
      description: 'What the issuer reports: unauthorized_use_of_card.',
      resolve: () => 'unauthorized_use_of_card',
    }),
    actionable: t.boolean({
      description:
        'Whether refunding still heads off a dispute (captured, not refunded in full, not disputed).',
      resolve: (row) => earlyFraudWarningActionable(row),
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the warning arrived, clock time.',
      resolve: (row) => row.earlyFraudWarningAt ?? row.updatedAt,
    }),
  }),
});

export const CardPaymentRef = builder.objectRef<CardPaymentDetail>('CardPayment').implement({
  description: `A Visa, Mastercard or Amex payment: POST /v1/card_payments. States: ${cardPaymentMachine.states.join(', ')}.`,
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'cardPayment'),
  fields: (t) => ({
    amountCaptured: t.field({
      type: MoneyRef,
      description: 'How much has been captured (at most the amount).',
      resolve: (row) => money(row.amountCaptured, row.currency),
    }),
    amountRefunded: t.field({
      type: MoneyRef,
      description: 'How much has been refunded (refunds that succeeded or are pending).',
      resolve: (row) => money(row.amountRefunded, row.currency),
    }),
    capture: t.boolean({
      description: 'Whether the authorization was captured on create (false: captureCardPayment later).',
      resolve: (row) => row.captureOnAuthorize,
    }),
    brand: t.field({
      type: CardBrandEnum,
      description: 'The card network.',
      resolve: (row) => row.brand as CardBrand,
    }),
    last4: t.exposeString('last4', { description: 'The last 4 digits of the card number.' }),
    expMonth: t.exposeInt('expMonth', { description: "The card's expiry month, 1-12." }),
    expYear: t.exposeInt('expYear', { description: "The card's expiry year." }),
    threeDSecure: t.field({
      type: ThreeDSecureStatusEnum,
      nullable: true,
      description: 'The 3-D Secure challenge, when the card asked for one.',
      resolve: (row) => row.threeDSecure as ThreeDSecureStatus | null,
    }),
    threeDSecureUrl: t.string({
      nullable: true,
      description: 'While requires_action: the challenge page (or call completeCardPaymentThreeDSecure).',
      resolve: (row, _args, ctx) =>
        row.state === 'requires_action' ? challengePageUrl(ctx.deps.publicUrl, row) : null,
    }),
    networkResponseCode: t.exposeString('networkResponseCode', {
      nullable: true,
      description:
        'The ISO 8583 response code of the authorization ("00" approved, "51" insufficient funds, …).',
    }),
    networkResponseMessage: t.string({
      nullable: true,
      description: 'What networkResponseCode means.',
      resolve: (row) =>
        row.networkResponseCode ? networkResponseDescription(row.networkResponseCode) : null,
    }),
    declineCode: t.exposeString('declineCode', {
      nullable: true,
      description: 'Why the card was declined (state declined), e.g. insufficient_funds.',
    }),
    failureMessage: t.exposeString('failureMessage', {
      nullable: true,
      description: 'A sentence about the decline, for a person.',
    }),
    refunds: t.field({
      type: [RefundRef],
      description: 'Its refunds, oldest first.',
      resolve: async (row, _args, ctx) =>
        (row as Partial<CardPaymentDetail>).refunds ??
        (await getCardPayment(serviceContext(ctx), row.id)).refunds,
    }),
    disputeId: t.exposeString('disputeId', {
      nullable: true,
      description: 'The id of its dispute (the dispute query reads it), when the cardholder disputed it.',
    }),
    earlyFraudWarning: t.field({
      type: EarlyFraudWarningRef,
      nullable: true,
      description: "The issuer's early fraud warning about it (card_payment.early_fraud_warning), if any.",
      resolve: (row) => (row.earlyFraudWarningAt ? row : null),
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: STORED_DESCRIPTION,
    }),
    metadata: t.field({
      type: 'JSONObject',
      description: STORED_METADATA,
      resolve: (row) => row.metadata,
    }),
    collectionId: t.exposeString('collectionId', {
      nullable: true,
      description: 'The id of the collection whose checkout made this payment, if one did.',
    }),
    authorizationExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'While authorized and not captured: when the authorization lapses (state expired), clock time.',
      resolve: (row) => row.authorizationExpiresAt,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When it last changed, clock time.',
      resolve: (row) => row.updatedAt,
    }),
  }),
});

const TokenRef = builder.objectRef<TokenRow>('CardToken').implement({
  description: 'A single-use card token (15 minutes of clock time). Never carries the number.',
  interfaces: [NodeRef],
  fields: (t) => ({
    brand: t.field({
      type: CardBrandEnum,
      description: 'The card network.',
      resolve: (row) => row.brand as CardBrand,
    }),
    last4: t.exposeString('last4', { description: 'The last 4 digits of the card number.' }),
    expMonth: t.exposeInt('expMonth', { description: "The card's expiry month, 1-12." }),
    expYear: t.exposeInt('expYear', { description: "The card's expiry year." }),
    used: t.boolean({
      description: 'Whether a payment has used the token (it is single-use).',
      resolve: (row) => row.usedAt !== null,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it can no longer be used, clock time.',
      resolve: (row) => row.expiresAt,
    }),
  }),
});

nodeKind('cardPayment', CardPaymentRef, cardPaymentsByIds);
nodeKind('refund', RefundRef, refundsByIds);
nodeKind('token', TokenRef, tokensByIds);

const RefundResultRef = builder
  .objectRef<{ refund: RefundRow; payment: CardPaymentDetail }>('CardPaymentRefund')
  .implement({
    description: 'A refund just asked for, and its card payment as it is now.',
    fields: (t) => ({
      refund: t.field({
        type: RefundRef,
        description: 'The new refund.',
        resolve: (result) => result.refund,
      }),
      cardPayment: t.field({
        type: CardPaymentRef,
        description: 'The card payment, with the refund counted in amountRefunded.',
        resolve: (result) => result.payment,
      }),
    }),
  });

builder.queryFields((t) => ({
  cardPayment: t.field({
    type: CardPaymentRef,
    nullable: true,
    description: 'A card payment by its id (GET /v1/card_payments/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The card payment's id (cp_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getCardPayment(serviceContext(ctx), String(args.id))),
  }),
  cardPayments: t.connection({
    type: CardPaymentRef,
    description: 'Card payments, newest first (first: 1-100, default 20).',
    args: {
      collectionId: t.arg.string({
        description: "Only the payments of this collection's checkout (its id).",
      }),
    },
    resolve: async (_root, args, ctx) => {
      const query = { ...listQueryOf(args), collection: args.collectionId ?? undefined };
      return toConnection(await listCardPayments(serviceContext(ctx), query), args);
    },
  }),
}));

const paymentMutation = mutationsOf(getCardPayment);

const createTokenBody = wireInput('createCardToken', bodies.createTokenSchema, bodies.createTokenFieldCodes);
const createPaymentBody = wireInput(
  'createCardPayment',
  bodies.createCardPaymentSchema,
  bodies.createCardPaymentFieldCodes,
);
const captureBody = wireInput('captureCardPayment', bodies.captureSchema, bodies.amountFieldCodes, {
  path: ['id'],
});
const refundBody = wireInput('refundCardPayment', bodies.refundSchema, bodies.amountFieldCodes, {
  path: ['id'],
});
const completeChallengeBody = wireInput(
  'completeCardPaymentThreeDSecure',
  completeChallengeSchema,
  undefined,
  { path: ['id'] },
);

/**
 * A mutation of one payment (`id`) with a body: an idempotency key's fingerprint is taken over the
 * id and the body, and the body is parsed in the run (so a bad key is reported before a bad body).
 */
function mutatePayment<S extends z.ZodType>(
  ctx: GraphQLContext,
  name: string,
  args: { id: string | number; idempotencyKey?: string | null },
  mapper: WireMapper<S>,
  run: (svc: ServiceContext, id: string, input: z.output<S>) => Promise<CardPaymentDetail>,
): Promise<CardPaymentDetail> {
  const body = mapper.body(args);
  return paymentMutation(ctx, name, args.idempotencyKey, { id: args.id, ...body }, (svc) =>
    run(svc, String(args.id), mapper.parse(body)),
  );
}

builder.mutationFields((t) => ({
  createCardToken: t.field({
    type: TokenRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/tokens: the one mutation the public key may call (browser tokenization).',
    skipTypeScopes: true,
    authScopes: { anyKey: true },
    args: { card: t.arg({ type: CardInput, required: true, description: 'The card to tokenize.' }) },
    resolve: (_root, args, ctx) =>
      createToken(serviceContext(ctx), createTokenBody.parse(createTokenBody.body(args))),
  }),
  createCardPayment: t.field({
    type: CardPaymentRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/card_payments: a decline is a CardDeclined-coded error carrying paymentId.',
    args: {
      amount: t.arg({ type: 'Decimal', required: true, description: 'How much, in major units.' }),
      currency: t.arg({
        type: CurrencyCodeEnum,
        required: true,
        description: 'USD (card payments are in USD; another code is currency_unsupported).',
      }),
      card: t.arg({ type: CardInput, description: 'The card; or token (exactly one of them).' }),
      token: t.arg.string({ description: 'A token from createCardToken, instead of card.' }),
      capture: t.arg.boolean({ description: 'Capture at once (default true); false only authorizes.' }),
      reference: t.arg.string({ description: REFERENCE }),
      description: t.arg.string({ description: DESCRIPTION }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = createPaymentBody.body(args);
      return paymentMutation(ctx, 'createCardPayment', args.idempotencyKey, body, (svc) =>
        createCardPayment(svc, createPaymentBody.parse(body)),
      );
    },
  }),
  captureCardPayment: t.field({
    type: CardPaymentRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/card_payments/{id}/capture: capture an authorized payment, in full or in part.',
    args: {
      id: t.arg.id({ required: true, description: "The payment's id." }),
      amount: t.arg({ type: 'Decimal', description: 'At most the authorized amount (default: all).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) =>
      mutatePayment(ctx, 'captureCardPayment', args, captureBody, captureCardPayment),
  }),
  voidCardPayment: t.field({
    type: CardPaymentRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/card_payments/{id}/void: release an authorization without capturing it.',
    args: {
      id: t.arg.id({ required: true, description: "The payment's id." }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) =>
      paymentMutation(ctx, 'voidCardPayment', args.idempotencyKey, { id: args.id }, (svc) =>
        voidCardPayment(svc, String(args.id)),
      ),
  }),
  refundCardPayment: t.field({
    type: RefundResultRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/card_payments/{id}/refunds: give back some or all of what was captured.',
    args: {
      id: t.arg.id({ required: true, description: "The payment's id." }),
      amount: t.arg({ type: 'Decimal', description: 'Default: all that is captured and not refunded.' }),
      reason: t.arg({ type: RefundReasonEnum, description: 'Why the merchant refunds.' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = refundBody.body(args);
      // The stored result is the refund's id: a replay answers with that refund, as it is now.
      return idempotentMutation<{ refund: RefundRow; payment: CardPaymentDetail }>(
        ctx,
        { name: 'refundCardPayment', key: args.idempotencyKey, input: { id: args.id, ...body } },
        async (svc) => {
          const result = await refundCardPayment(svc, String(args.id), refundBody.parse(body));
          return { ...result, id: result.refund.id };
        },
        getRefund,
      );
    },
  }),
  completeCardPaymentThreeDSecure: t.field({
    type: CardPaymentRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/card_payments/{id}/complete_3ds.',
    args: {
      id: t.arg.id({ required: true, description: "The payment's id (state requires_action)." }),
      outcome: t.arg({
        type: ThreeDSecureOutcomeEnum,
        required: true,
        description: 'Whether the payer passes the challenge.',
      }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) =>
      mutatePayment(
        ctx,
        'completeCardPaymentThreeDSecure',
        args,
        completeChallengeBody,
        completeCardPayment3ds,
      ),
  }),
}));
