import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { cardPaymentResource } from '../card-payments/card-payments.resource.ts';
import { loadPayment } from '../card-payments/card-payments.rows.ts';
import { transferResource } from '../transfers/transfers.resource.ts';
import { completeChallenge, type PayResult, payCollection } from './collections.pay.ts';
import { attemptResource, collectionResource } from './collections.resource.ts';
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

function payResultResource(result: PayResult, publicUrl: string) {
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
export function collectionPayments(detail: CollectionDetail, publicUrl: string): Record<string, unknown>[] {
  const payments = [
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

export function registerCollectionRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/collect',
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
      tags: ['Collections'],
      summary: 'Get a collection by its reference (or id), with its payments',
      request: { params: referenceParam },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const detail = await getCollection(ctx, c.req.valid('param').reference);
      return sendObject(c, {
        ...collectionResource(detail, ctx.publicUrl),
        payments: collectionPayments(detail, ctx.publicUrl),
        // Kept (additive contract): bank attempts made before bank payments became ACH debits.
        payment_attempts: detail.attempts.map(attemptResource),
      });
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/collections/{reference}/cancel',
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
      const payment = await loadPayment(ctx.tx ?? ctx.db, ctx, id);
      if (!payment.collectionId)
        throw new SandbankError('resource_not_found', { message: 'No such payment.' });
      const result = await completeChallenge(ctx, id, c.req.valid('json'), payment.collectionId);
      return sendObject(c, payResultResource(result, ctx.publicUrl));
    },
    validationHook(),
  );
}
