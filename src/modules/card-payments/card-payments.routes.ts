import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { createCardPayment } from './card-payments.authorize.ts';
import { captureCardPayment, voidCardPayment } from './card-payments.capture.ts';
import { getCardPayment, listCardPayments } from './card-payments.read.ts';
import { refundCardPayment } from './card-payments.refund.ts';
import {
  CardPaymentWire,
  cardPaymentResource,
  RefundWire,
  refundResource,
  TokenWire,
  tokenResource,
} from './card-payments.resource.ts';
import type { CardPaymentDetail } from './card-payments.rows.ts';
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

const idParam = z.object({ id: z.string().min(1).max(255) });
const CardPaymentList = listOf(CardPaymentWire, 'CardPayment');
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
const render = (publicUrl: string) => (detail: CardPaymentDetail) =>
  cardPaymentResource(detail, detail.refunds, publicUrl);

export function registerCardPaymentRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/tokens',
      operationId: 'createCardToken',
      response: TokenWire,
      errors: ['invalid_card_number', 'card_brand_unsupported', 'invalid_cvc', 'invalid_expiry'],
      publicKey: true,
      tags: ['Card payments'],
      summary: 'Tokenize a card (public or secret key): single use, 15 minutes of clock time',
      request: jsonRequestBody(createTokenSchema),
    }),
    async (c) => sendObject(c, tokenResource(await createToken(serviceContext(c), c.req.valid('json')))),
    validationHook(createTokenFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/card_payments',
      operationId: 'createCardPayment',
      response: CardPaymentWire,
      errors: CARD_ERRORS,
      tags: ['Card payments'],
      summary: 'Authorize (and by default capture) a card payment with a card or a token',
      request: jsonRequestBody(createCardPaymentSchema),
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendObject(c, render(ctx.publicUrl)(await createCardPayment(ctx, c.req.valid('json'))));
    },
    validationHook(createCardPaymentFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/card_payments',
      operationId: 'listCardPayments',
      response: CardPaymentList,
      tags: ['Card payments'],
      summary: 'List card payments, newest first',
      request: {
        query: listQuerySchema.extend({
          collection: z.string().max(64).optional().describe('Only the payments of this collection (id).'),
        }),
      },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendList(c, await listCardPayments(ctx, c.req.valid('query')), render(ctx.publicUrl));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/card_payments/{id}',
      operationId: 'getCardPayment',
      response: CardPaymentWire,
      tags: ['Card payments'],
      summary: 'Get a card payment with its refunds',
      request: { params: idParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendObject(c, render(ctx.publicUrl)(await getCardPayment(ctx, c.req.valid('param').id)));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/card_payments/{id}/capture',
      operationId: 'captureCardPayment',
      response: CardPaymentWire,
      errors: ['invalid_state', 'amount_invalid'],
      tags: ['Card payments'],
      summary: 'Capture an authorization, in full or in part (the rest is released)',
      request: { params: idParam, ...jsonRequestBody(captureSchema, false) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const detail = await captureCardPayment(ctx, c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, render(ctx.publicUrl)(detail));
    },
    validationHook(amountFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/card_payments/{id}/void',
      operationId: 'voidCardPayment',
      response: CardPaymentWire,
      errors: ['invalid_state'],
      tags: ['Card payments'],
      summary: 'Void an authorization (nothing is captured)',
      request: { params: idParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendObject(c, render(ctx.publicUrl)(await voidCardPayment(ctx, c.req.valid('param').id)));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/card_payments/{id}/refunds',
      operationId: 'refundCardPayment',
      response: RefundWithPayment,
      errors: ['invalid_state', 'amount_invalid'],
      tags: ['Card payments'],
      summary: 'Refund a captured payment, in full or in part (several refunds up to the captured amount)',
      request: { params: idParam, ...jsonRequestBody(refundSchema, false) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const { payment, refund } = await refundCardPayment(ctx, c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, {
        ...refundResource(refund),
        card_payment: render(ctx.publicUrl)(payment),
      });
    },
    validationHook(amountFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/card_payments/{id}/complete_3ds',
      operationId: 'completeCardPaymentThreeDSecure',
      response: CardPaymentWire,
      errors: ['invalid_state', 'card_declined'],
      tags: ['Simulation'],
      summary: "Answer a card payment's 3-D Secure challenge headlessly",
      request: { params: idParam, ...jsonRequestBody(completeChallengeSchema) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const detail = await completeCardPayment3ds(ctx, c.req.valid('param').id, c.req.valid('json'));
      return sendObject(c, render(ctx.publicUrl)(detail));
    },
    validationHook(),
  );
}
