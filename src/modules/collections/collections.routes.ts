import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { CardPaymentWire, cardPaymentResource } from '../card-payments/card-payments.resource.ts';
import { loadPayment } from '../card-payments/card-payments.rows.ts';
import { dbOf } from '../context.ts';
import { TransferWire, transferResource } from '../transfers/transfers.resource.ts';
import { completeChallenge, type PayResult, payCollection } from './collections.pay.ts';
import {
  attemptResource,
  CollectionWire,
  collectionResource,
  PaymentAttemptWire,
} from './collections.resource.ts';
import {
  createCollectionFieldCodes,
  createCollectionSchema,
  payCollectionFieldCodes,
  payCollectionSchema,
} from './collections.schema.ts';
import {
  type CollectionDetail,
  cancelCollection,
  createCollection,
  getCollection,
  listCollections,
} from './collections.service.ts';

const referenceParam = z.object({ reference: z.string().min(1).max(255) });

/** A payment of a collection: a card payment, an ACH debit of the payer, or an older attempt. */
export const CollectionPaymentWire = z.union([CardPaymentWire, TransferWire, PaymentAttemptWire]).meta({
  id: 'CollectionPayment',
  description:
    'A payment of a collection, by its object: a card_payment, a transfer (the ACH debit of a bank payment), or a payment_attempt made before those took that role.',
});

export const CollectionWithPaymentsWire = CollectionWire.extend({
  payments: z
    .array(CollectionPaymentWire)
    .meta({ description: "The collection's payments, newest first, whatever their kind." }),
  payment_attempts: z.array(PaymentAttemptWire).meta({
    description:
      'Kept for older clients: the payment attempts among the payments (none for a collection paid since card payments and ACH debits took that role).',
  }),
}).meta({ id: 'CollectionWithPayments', description: 'A collection with its payments.' });

export const CollectionPayResultWire = CollectionWire.extend({
  payment: z
    .union([CollectionPaymentWire, z.null()])
    .meta({ description: 'The payment this call made (or, replayed, made then); null if none.' }),
  payment_attempt: z.union([PaymentAttemptWire, z.null()]).meta({
    description:
      'Kept for older clients: the payment when it is a payment_attempt (a replay of an older payment); null otherwise.',
  }),
  next_action: z
    .object({
      type: z.literal('three_d_secure'),
      url: z
        .string()
        .meta({ format: 'uri', description: "The checkout's 3-D Secure page for this payment." }),
    })
    .nullable()
    .meta({
      description: 'What the payer must do next: a 3-D Secure challenge to complete; null otherwise.',
    }),
}).meta({
  id: 'CollectionPayResult',
  description: 'A collection as a payment left it, with that payment and what the payer must do next.',
});

/** What paying a collection may be refused for: the card, the bank account, the collection's state. */
const PAY_ERRORS = [
  'invalid_card_number',
  'card_brand_unsupported',
  'invalid_cvc',
  'invalid_expiry',
  'card_declined',
  'invalid_routing_number',
  'invalid_account_number',
  'routing_number_unreachable',
  'collection_not_payable',
] as const;

function payResultResource(result: PayResult, publicUrl: string): Wire<typeof CollectionPayResultWire> {
  return {
    ...collectionResource(result.collection, publicUrl),
    payment: result.cardPayment
      ? cardPaymentResource(result.cardPayment, [], publicUrl)
      : result.debit
        ? transferResource(result.debit)
        : result.attempt
          ? attemptResource(result.attempt)
          : null,
    // Kept (additive contract): null now that card payments are card payments and bank
    // payments ACH debits (a replay of an older bank payment still shows its attempt).
    payment_attempt: result.attempt ? attemptResource(result.attempt) : null,
    next_action: result.nextAction,
  };
}

/** A collection's payments, newest first: its card payments, its ACH debits and any older bank attempts. */
export function collectionPayments(
  detail: CollectionDetail,
  publicUrl: string,
): Wire<typeof CollectionPaymentWire>[] {
  const payments: { at: Date; id: string; body: Wire<typeof CollectionPaymentWire> }[] = [
    ...detail.cardPayments.map((p) => ({
      at: p.createdAt,
      id: p.id,
      body: cardPaymentResource(p, p.refunds, publicUrl),
    })),
    ...detail.debits.map((d) => ({ at: d.createdAt, id: d.id, body: transferResource(d) })),
    ...detail.attempts.map((a) => ({ at: a.createdAt, id: a.id, body: attemptResource(a) })),
  ];
  payments.sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1));
  return payments.map((p) => p.body);
}

/** A collection with its payments (GET /v1/collections/{reference}). */
function collectionWithPaymentsResource(
  detail: CollectionDetail,
  publicUrl: string,
): Wire<typeof CollectionWithPaymentsWire> {
  return {
    ...collectionResource(detail, publicUrl),
    payments: collectionPayments(detail, publicUrl),
    // Kept (additive contract): bank attempts made before bank payments became ACH debits.
    payment_attempts: detail.attempts.map(attemptResource),
  };
}

export function registerCollectionRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/collect',
      operationId: 'createCollection',
      response: CollectionWire,
      errors: [
        'amount_invalid',
        'currency_unsupported',
        'email_invalid',
        'reference_invalid',
        'url_invalid',
        'duplicate_reference',
      ],
      tags: ['Collections'],
      summary: 'Create a collection (a hosted checkout session)',
      request: jsonRequestBody(createCollectionSchema),
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const row = await createCollection(ctx, c.req.valid('json'));
      return sendObject(c, collectionResource(row, ctx.publicUrl));
    },
    validationHook(createCollectionFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/collections',
      operationId: 'listCollections',
      response: listOf(CollectionWire, 'Collection'),
      tags: ['Collections'],
      summary: 'List collections, newest first',
      request: { query: listQuerySchema },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const page = await listCollections(ctx, c.req.valid('query'));
      return sendList(c, page, (row) => collectionResource(row, ctx.publicUrl));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/collections/{reference}',
      operationId: 'getCollection',
      response: CollectionWithPaymentsWire,
      tags: ['Collections'],
      summary: 'Get a collection by its reference (or id), with its payments',
      request: { params: referenceParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const detail = await getCollection(ctx, c.req.valid('param').reference);
      return sendObject(c, collectionWithPaymentsResource(detail, ctx.publicUrl));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/collections/{reference}/cancel',
      operationId: 'cancelCollection',
      response: CollectionWire,
      errors: ['invalid_state'],
      tags: ['Collections'],
      summary: 'Cancel a pending collection',
      request: { params: referenceParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const row = await cancelCollection(ctx, c.req.valid('param').reference);
      return sendObject(c, collectionResource(row, ctx.publicUrl));
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/collections/{reference}/pay',
      operationId: 'payCollection',
      response: CollectionPayResultWire,
      errors: PAY_ERRORS,
      tags: ['Simulation'],
      summary: 'Pay a collection headlessly, through the same code path as the checkout page',
      request: { params: referenceParam, ...jsonRequestBody(payCollectionSchema) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const result = await payCollection(ctx, c.req.valid('param').reference, c.req.valid('json'));
      return sendObject(c, payResultResource(result, ctx.publicUrl));
    },
    validationHook(payCollectionFieldCodes),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/payment_attempts/{attempt}/complete_3ds',
      operationId: 'completePaymentAttemptThreeDSecure',
      response: CollectionPayResultWire,
      errors: ['invalid_state', 'card_declined', 'collection_not_payable'],
      tags: ['Simulation'],
      deprecated: true,
      summary:
        "Deprecated alias: answer the 3-D Secure challenge of a collection's card payment (cp_ id); use /simulate/card_payments/{id}/complete_3ds",
      request: {
        params: z.object({ attempt: z.string().min(1).max(255) }),
        ...jsonRequestBody(completeChallengeSchema),
      },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const id = c.req.valid('param').attempt;
      const payment = await loadPayment(dbOf(ctx), ctx, id);
      if (!payment.collectionId)
        throw new SandbankError('resource_not_found', { message: 'No such payment.' });
      const result = await completeChallenge(ctx, id, c.req.valid('json'), payment.collectionId);
      return sendObject(c, payResultResource(result, ctx.publicUrl));
    },
    validationHook(),
  );
}
