import { builder, type GraphQLContext } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { descriptionOf, graphqlObject, inputFor, registerObjectType } from '../../graphql/derive.ts';
import { enumOf, ThreeDSecureStatusEnum } from '../../graphql/enums.ts';
import { CardInput } from '../../graphql/inputs.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { cardSchema } from '../../kernel/wire-schemas.ts';
import type { CardBrand } from '../cards/card-numbers.ts';
import { CardBrandValues } from '../cards/card-numbers.ts';
import { cardPaymentOperations } from './card-payments.operations.ts';
import { cardPaymentsByIds, getCardPayment, refundsByIds, tokensByIds } from './card-payments.read.ts';
import {
  CARD_PAYMENT_REFUNDS,
  CardPayment,
  challengePageUrl,
  EarlyFraudWarningWire,
  earlyFraudWarningActionable,
  Refund,
  type RefundRow,
  Token,
  TokenCardWire,
  type TokenRow,
} from './card-payments.resource.ts';
import type { CardPaymentDetail } from './card-payments.rows.ts';
import { createTokenFieldCodes, createTokenSchema } from './card-payments.schema.ts';
import { createToken } from './card-payments.tokens.ts';

const RefundRef = graphqlObject<RefundRow>(Refund, {
  interfaces: [NodeRef],
  names: { card_payment: 'cardPaymentId' },
});

const warning = EarlyFraudWarningWire.shape;

const EarlyFraudWarningRef = builder.objectRef<CardPaymentDetail>('EarlyFraudWarning').implement({
  description: EarlyFraudWarningWire.description ?? '',
  fields: (t) => ({
    fraudType: t.string({
      description: descriptionOf(warning.fraud_type) ?? '',
      resolve: () => 'unauthorized_use_of_card',
    }),
    actionable: t.boolean({
      description: descriptionOf(warning.actionable) ?? '',
      resolve: (row) => earlyFraudWarningActionable(row),
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: descriptionOf(warning.created_at) ?? '',
      resolve: (row) => row.earlyFraudWarningAt ?? row.updatedAt,
    }),
  }),
});

export const CardPaymentRef = graphqlObject<CardPaymentDetail>(CardPayment, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'cardPayment'),
  // The Transaction interface answers state (as a TransactionState).
  omit: ['state'],
  names: { dispute: 'disputeId', collection: 'collectionId' },
  enums: { three_d_secure: ThreeDSecureStatusEnum },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    threeDSecureUrl: t.string({
      nullable: true,
      description: 'While requires_action: the challenge page (or call completeCardPaymentThreeDSecure).',
      resolve: (row: CardPaymentDetail, _args: unknown, ctx: GraphQLContext) =>
        row.state === 'requires_action' ? challengePageUrl(ctx.deps.publicUrl, row) : null,
    }),
    refunds: t.field({
      type: [RefundRef],
      description: CARD_PAYMENT_REFUNDS,
      resolve: async (row: CardPaymentDetail, _args: unknown, ctx: GraphQLContext) =>
        (row as Partial<CardPaymentDetail>).refunds ??
        (await getCardPayment(serviceContext(ctx), row.id)).refunds,
    }),
    earlyFraudWarning: t.field({
      type: EarlyFraudWarningRef,
      nullable: true,
      description: "The issuer's early fraud warning about it (card_payment.early_fraud_warning), if any.",
      resolve: (row: CardPaymentDetail) => (row.earlyFraudWarningAt ? row : null),
    }),
  }),
});

const card = TokenCardWire;

const TokenRef = graphqlObject<TokenRow>(Token, {
  interfaces: [NodeRef],
  // GraphQL has no createdAt on a token, and answers its card's fields on the token itself.
  omit: ['created_at'],
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    brand: t.field({
      type: enumOf(CardBrandValues),
      description: descriptionOf(card.shape.brand),
      resolve: (row: TokenRow) => row.brand as CardBrand,
    }),
    last4: t.exposeString('last4', { description: descriptionOf(card.shape.last4) }),
    expMonth: t.exposeInt('expMonth', { description: descriptionOf(card.shape.exp_month) }),
    expYear: t.exposeInt('expYear', { description: descriptionOf(card.shape.exp_year) }),
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
      refund: t.expose('refund', { type: RefundRef, description: 'The new refund.' }),
      cardPayment: t.expose('payment', {
        type: CardPaymentRef,
        description: 'The card payment, with the refund counted in amountRefunded.',
      }),
    }),
  });
registerObjectType('CardPaymentRefund', RefundResultRef);

inputFor(cardSchema, CardInput);
mountGraphqlOperations(cardPaymentOperations);

const createTokenBody = wireInput('createCardToken', createTokenSchema, createTokenFieldCodes);

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
}));
