import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import { defineOperation } from '../operation.ts';
import { createCardPayment } from './card-payments.authorize.ts';
import { captureCardPayment, voidCardPayment } from './card-payments.capture.ts';
import { getCardPayment, getRefund, listCardPayments } from './card-payments.read.ts';
import { refundCardPayment } from './card-payments.refund.ts';
import { CardPayment, CardPaymentWire, Refund, RefundWire, Token } from './card-payments.resource.ts';
import {
  amountFieldCodes,
  captureSchema,
  createCardPaymentFieldCodes,
  createCardPaymentSchema,
  createTokenFieldCodes,
  createTokenSchema,
  refundSchema,
} from './card-payments.schema.ts';
import { completeCardPayment3ds } from './card-payments.three-ds.ts';
import { createToken } from './card-payments.tokens.ts';

/** The operations on card tokens, card payments and refunds, each declared once: its REST route and its GraphQL field. */

const idParam = z.object({
  id: z.string().min(1).max(255).describe("The card payment's id (cp_…)."),
});

const RefundWithPayment = RefundWire.extend({ card_payment: CardPaymentWire }).meta({
  id: 'RefundWithCardPayment',
  description: 'A new refund, with the card payment it refunded as it now stands.',
});

/** What a card can be refused for, before or at the network. */
const CARD_ERRORS = [
  'invalid_card_number',
  'card_brand_unsupported',
  'invalid_cvc',
  'invalid_expiry',
  'card_declined',
  'token_already_used',
  'token_expired',
  'amount_invalid',
  'currency_unsupported',
  'reference_invalid',
  'resource_not_found',
] as const;

const TAGS = ['Card payments'];

export const cardPaymentOperations = [
  // GraphQL's createCardToken is written by hand (card-payments.graphql.ts): the public key may call
  // it, and it is not replayed by an idempotency key.
  defineOperation({
    name: 'createCardToken',
    method: 'post',
    path: '/tokens',
    tags: TAGS,
    summary: 'Tokenize a card (public or secret key): single use, 15 minutes of clock time',
    publicKey: true,
    body: createTokenSchema,
    codes: createTokenFieldCodes,
    errors: ['invalid_card_number', 'card_brand_unsupported', 'invalid_cvc', 'invalid_expiry'],
    output: Token,
    run: (ctx, { body }) => createToken(ctx, body),
    graphql: false,
  }),
  defineOperation({
    name: 'createCardPayment',
    method: 'post',
    path: '/card_payments',
    tags: TAGS,
    summary: 'Authorize (and by default capture) a card payment with a card or a token',
    body: createCardPaymentSchema,
    codes: createCardPaymentFieldCodes,
    errors: CARD_ERRORS,
    output: CardPayment,
    run: (ctx, { body }) => createCardPayment(ctx, body),
    graphql: { reload: getCardPayment },
  }),
  defineOperation({
    name: 'listCardPayments',
    method: 'get',
    path: '/card_payments',
    tags: TAGS,
    summary: 'List card payments, newest first',
    query: listQuerySchema.extend({
      collection: z
        .string()
        .max(64)
        .optional()
        .describe("Only the payments of this collection's checkout (its id)."),
    }),
    output: CardPayment,
    list: true,
    run: (ctx, { query }) => listCardPayments(ctx, query),
    graphql: { name: 'cardPayments', filters: { collectionId: 'collection' } },
  }),
  defineOperation({
    name: 'getCardPayment',
    method: 'get',
    path: '/card_payments/{id}',
    tags: TAGS,
    summary: 'Get a card payment with its refunds',
    params: idParam,
    output: CardPayment,
    run: (ctx, { params }) => getCardPayment(ctx, params.id),
    graphql: { name: 'cardPayment' },
  }),
  defineOperation({
    name: 'captureCardPayment',
    method: 'post',
    path: '/card_payments/{id}/capture',
    tags: TAGS,
    summary: 'Capture an authorization, in full or in part (the rest is released)',
    params: idParam,
    body: captureSchema,
    optionalBody: true,
    codes: amountFieldCodes,
    errors: ['invalid_state', 'amount_invalid'],
    output: CardPayment,
    run: (ctx, { params, body }) => captureCardPayment(ctx, params.id, body),
    graphql: { reload: getCardPayment },
  }),
  defineOperation({
    name: 'voidCardPayment',
    method: 'post',
    path: '/card_payments/{id}/void',
    tags: TAGS,
    summary: 'Void an authorization (nothing is captured)',
    params: idParam,
    errors: ['invalid_state'],
    output: CardPayment,
    run: (ctx, { params }) => voidCardPayment(ctx, params.id),
    graphql: { reload: getCardPayment },
  }),
  defineOperation({
    name: 'refundCardPayment',
    method: 'post',
    path: '/card_payments/{id}/refunds',
    tags: TAGS,
    summary: 'Refund a captured payment, in full or in part (several refunds up to the captured amount)',
    params: idParam,
    body: refundSchema,
    optionalBody: true,
    codes: amountFieldCodes,
    errors: ['invalid_state', 'amount_invalid'],
    output: Refund,
    // The refund's id is what an idempotency key stores: a replay answers that refund, as it is now.
    run: async (ctx, { params, body }) => {
      const result = await refundCardPayment(ctx, params.id, body);
      return { ...result, id: result.refund.id };
    },
    answer: {
      wire: RefundWithPayment,
      render: ({ refund, payment }, rc) => ({
        ...Refund.render(refund, rc),
        card_payment: CardPayment.render(payment, rc),
      }),
    },
    graphql: { returns: 'CardPaymentRefund', reload: getRefund },
  }),
  defineOperation({
    name: 'completeCardPaymentThreeDSecure',
    method: 'post',
    path: '/simulate/card_payments/{id}/complete_3ds',
    tags: ['Simulation'],
    summary: "Answer a card payment's 3-D Secure challenge headlessly",
    params: idParam,
    body: completeChallengeSchema,
    errors: ['invalid_state', 'card_declined'],
    output: CardPayment,
    run: (ctx, { params, body }) => completeCardPayment3ds(ctx, params.id, body),
    graphql: { reload: getCardPayment },
  }),
];
