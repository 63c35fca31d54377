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
import { CardInput } from '../../graphql/inputs.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { type WireMapper, wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import type { ServiceContext } from '../context.ts';
import { createCardPayment } from './card-payments.authorize.ts';
import { captureCardPayment, voidCardPayment } from './card-payments.capture.ts';
import { cardPaymentMachine, refundMachine } from './card-payments.machine.ts';
import { getCardPayment, getRefund, listCardPayments } from './card-payments.read.ts';
import { refundCardPayment } from './card-payments.refund.ts';
import { challengePageUrl, type RefundRow, type TokenRow } from './card-payments.resource.ts';
import type { CardPaymentDetail } from './card-payments.rows.ts';
import * as bodies from './card-payments.schema.ts';
import { completeCardPayment3ds } from './card-payments.three-ds.ts';
import { createToken } from './card-payments.tokens.ts';

const RefundStateEnum = builder.enumType('RefundState', { values: refundMachine.states });

const money = (amount: bigint, currency: string) => ({ amount, currency: currency as CurrencyCode });

const RefundRef = builder.objectRef<RefundRow>('Refund').implement({
  description: 'A refund of a captured card payment: pending → succeeded | failed.',
  fields: (t) => ({
    id: t.exposeID('id'),
    cardPaymentId: t.exposeString('cardPaymentId'),
    state: t.field({ type: RefundStateEnum, resolve: (row) => row.state }),
    amount: t.field({ type: MoneyRef, resolve: (row) => money(row.amount, row.currency) }),
    reason: t.exposeString('reason', { nullable: true }),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

export const CardPaymentRef = builder.objectRef<CardPaymentDetail>('CardPayment').implement({
  description: `A Visa, Mastercard or Amex payment: POST /v1/card_payments. States: ${cardPaymentMachine.states.join(', ')}.`,
  interfaces: [TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'cardPayment'),
  fields: (t) => ({
    amountCaptured: t.field({ type: MoneyRef, resolve: (row) => money(row.amountCaptured, row.currency) }),
    amountRefunded: t.field({ type: MoneyRef, resolve: (row) => money(row.amountRefunded, row.currency) }),
    capture: t.boolean({ resolve: (row) => row.captureOnAuthorize }),
    brand: t.exposeString('brand'),
    last4: t.exposeString('last4'),
    expMonth: t.exposeInt('expMonth'),
    expYear: t.exposeInt('expYear'),
    threeDSecure: t.exposeString('threeDSecure', { nullable: true }),
    threeDSecureUrl: t.string({
      nullable: true,
      description: 'While requires_action: the challenge page (or call completeCardPaymentThreeDSecure).',
      resolve: (row, _args, ctx) =>
        row.state === 'requires_action' ? challengePageUrl(ctx.deps.publicUrl, row) : null,
    }),
    networkResponseCode: t.exposeString('networkResponseCode', { nullable: true }),
    networkResponseMessage: t.string({
      nullable: true,
      resolve: (row) =>
        row.networkResponseCode ? networkResponseDescription(row.networkResponseCode) : null,
    }),
    declineCode: t.exposeString('declineCode', { nullable: true }),
    failureMessage: t.exposeString('failureMessage', { nullable: true }),
    refunds: t.field({
      type: [RefundRef],
      resolve: async (row, _args, ctx) =>
        (row as Partial<CardPaymentDetail>).refunds ??
        (await getCardPayment(serviceContext(ctx), row.id)).refunds,
    }),
    description: t.exposeString('description', { nullable: true }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    collectionId: t.exposeString('collectionId', { nullable: true }),
    authorizationExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (row) => row.authorizationExpiresAt,
    }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

const TokenRef = builder.objectRef<TokenRow>('CardToken').implement({
  description: 'A single-use card token (15 minutes of clock time). Never carries the number.',
  fields: (t) => ({
    id: t.exposeID('id'),
    brand: t.exposeString('brand'),
    last4: t.exposeString('last4'),
    expMonth: t.exposeInt('expMonth'),
    expYear: t.exposeInt('expYear'),
    used: t.boolean({ resolve: (row) => row.usedAt !== null }),
    expiresAt: t.field({ type: 'DateTime', resolve: (row) => row.expiresAt }),
  }),
});

const RefundResultRef = builder
  .objectRef<{ refund: RefundRow; payment: CardPaymentDetail }>('CardPaymentRefund')
  .implement({
    fields: (t) => ({
      refund: t.field({ type: RefundRef, resolve: (result) => result.refund }),
      cardPayment: t.field({ type: CardPaymentRef, resolve: (result) => result.payment }),
    }),
  });

builder.queryFields((t) => ({
  cardPayment: t.field({
    type: CardPaymentRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getCardPayment(serviceContext(ctx), String(args.id))),
  }),
  cardPayments: t.connection({
    type: CardPaymentRef,
    description: 'Card payments, newest first (first: 1-100, default 20).',
    args: { collectionId: t.arg.string() },
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
    args: { card: t.arg({ type: CardInput, required: true }) },
    resolve: (_root, args, ctx) =>
      createToken(serviceContext(ctx), createTokenBody.parse(createTokenBody.body(args))),
  }),
  createCardPayment: t.field({
    type: CardPaymentRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/card_payments: a decline is a CardDeclined-coded error carrying paymentId.',
    args: {
      amount: t.arg({ type: 'Decimal', required: true }),
      currency: t.arg.string({ required: true }),
      card: t.arg({ type: CardInput }),
      token: t.arg.string(),
      capture: t.arg.boolean({ description: 'Capture at once (default true).' }),
      reference: t.arg.string(),
      description: t.arg.string(),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
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
    args: {
      id: t.arg.id({ required: true }),
      amount: t.arg({ type: 'Decimal', description: 'At most the authorized amount (default: all).' }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      mutatePayment(ctx, 'captureCardPayment', args, captureBody, captureCardPayment),
  }),
  voidCardPayment: t.field({
    type: CardPaymentRef,
    errors: { types: [SandbankError] },
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, args, ctx) =>
      paymentMutation(ctx, 'voidCardPayment', args.idempotencyKey, { id: args.id }, (svc) =>
        voidCardPayment(svc, String(args.id)),
      ),
  }),
  refundCardPayment: t.field({
    type: RefundResultRef,
    errors: { types: [SandbankError] },
    args: {
      id: t.arg.id({ required: true }),
      amount: t.arg({ type: 'Decimal', description: 'Default: all that is captured and not refunded.' }),
      reason: t.arg.string({ description: 'duplicate, fraudulent or requested_by_customer' }),
      idempotencyKey: t.arg.string(),
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
      id: t.arg.id({ required: true }),
      outcome: t.arg.string({ required: true, description: 'succeed or fail' }),
      idempotencyKey: t.arg.string(),
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
