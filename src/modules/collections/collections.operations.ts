import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import { tapped } from '../../kernel/object-taps.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { completeChallengeSchema } from '../../kernel/wire-schemas.ts';
import { loadPayment } from '../card-payments/card-payments.rows.ts';
import { dbOf } from '../context.ts';
import { defineOperation } from '../operation.ts';
import {
  CollectionPayResultWire,
  CollectionWithPaymentsWire,
  collectionWithPaymentsResource,
  payResultResource,
} from './collections.answers.ts';
import { completeChallenge, payCollection } from './collections.pay.ts';
import { Collection } from './collections.resource.ts';
import {
  createCollectionFieldCodes,
  createCollectionSchema,
  payCollectionFieldCodes,
  payCollectionSchema,
  updateCollectionSchema,
} from './collections.schema.ts';
import {
  cancelCollection,
  createCollection,
  getCollection,
  listCollections,
  updateCollection,
} from './collections.service.ts';

/** The operations on collections, each declared once: its REST route and its GraphQL field. */

const referenceParam = z.object({
  reference: z.string().min(1).max(255).describe("The collection's reference, or its id (col_…)."),
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

const TAGS = ['Collections'];

export const collectionOperations = [
  defineOperation({
    name: 'createCollection',
    method: 'post',
    path: '/collect',
    tags: TAGS,
    summary: 'Create a collection (a hosted checkout session)',
    body: createCollectionSchema,
    codes: createCollectionFieldCodes,
    errors: [
      'amount_invalid',
      'currency_unsupported',
      'email_invalid',
      'reference_invalid',
      'url_invalid',
      'duplicate_reference',
    ],
    output: Collection,
    run: (ctx, { body }) => createCollection(ctx, body),
    graphql: {
      inputArg: { name: 'input', description: 'The new collection.', type: 'CreateCollectionInput' },
      reload: getCollection,
    },
  }),
  defineOperation({
    name: 'listCollections',
    method: 'get',
    path: '/collections',
    tags: TAGS,
    summary: 'List collections, newest first',
    query: listQuerySchema,
    output: Collection,
    list: true,
    run: (ctx, { query }) => listCollections(ctx, query),
    graphql: { name: 'collections' },
  }),
  defineOperation({
    name: 'getCollection',
    method: 'get',
    path: '/collections/{reference}',
    tags: TAGS,
    summary: 'Get a collection by its reference (or id), with its payments',
    params: referenceParam,
    output: Collection,
    run: (ctx, { params }) =>
      tapped(ctx.merchant.id, params.reference, 'read', () => getCollection(ctx, params.reference)),
    answer: {
      wire: CollectionWithPaymentsWire,
      render: (detail, rc) => collectionWithPaymentsResource(detail, rc.publicUrl),
    },
    graphql: { name: 'collection' },
  }),
  defineOperation({
    name: 'updateCollection',
    method: 'post',
    path: '/collections/{reference}',
    tags: TAGS,
    summary: "Merge keys into a collection's metadata, or set its description (no event)",
    params: referenceParam,
    body: updateCollectionSchema,
    output: Collection,
    run: (ctx, { params, body }) =>
      tapped(ctx.merchant.id, params.reference, 'write', () => updateCollection(ctx, params.reference, body)),
    graphql: {
      inputArg: { name: 'input', description: 'What to change.', type: 'UpdateCollectionInput' },
      reload: getCollection,
    },
  }),
  defineOperation({
    name: 'cancelCollection',
    method: 'post',
    path: '/collections/{reference}/cancel',
    tags: TAGS,
    summary: 'Cancel a pending collection',
    params: referenceParam,
    errors: ['invalid_state'],
    output: Collection,
    run: (ctx, { params }) =>
      tapped(ctx.merchant.id, params.reference, 'write', () => cancelCollection(ctx, params.reference)),
    graphql: { reload: getCollection },
  }),
  // GraphQL's simulateCollectionPayment is written by hand (collections.graphql.ts): its arguments
  // are the body's two shapes side by side, and it answers an object of its own.
  defineOperation({
    name: 'payCollection',
    method: 'post',
    path: '/simulate/collections/{reference}/pay',
    tags: ['Simulation'],
    summary: 'Pay a collection headlessly, through the same code path as the checkout page',
    params: referenceParam,
    body: payCollectionSchema,
    codes: payCollectionFieldCodes,
    errors: PAY_ERRORS,
    output: Collection,
    run: (ctx, { params, body }) => payCollection(ctx, params.reference, body),
    answer: {
      wire: CollectionPayResultWire,
      render: (result, rc) => payResultResource(result, rc.publicUrl),
    },
    graphql: false,
  }),
  defineOperation({
    name: 'completePaymentAttemptThreeDSecure',
    method: 'post',
    path: '/simulate/payment_attempts/{attempt}/complete_3ds',
    tags: ['Simulation'],
    deprecated: true,
    summary:
      "Deprecated alias: answer the 3-D Secure challenge of a collection's card payment (cp_ id); use /simulate/card_payments/{id}/complete_3ds",
    params: z.object({ attempt: z.string().min(1).max(255) }),
    body: completeChallengeSchema,
    errors: ['invalid_state', 'card_declined', 'collection_not_payable'],
    output: Collection,
    run: async (ctx, { params, body }) => {
      const payment = await loadPayment(dbOf(ctx), ctx, params.attempt);
      if (!payment.collectionId)
        throw new SandbankError('resource_not_found', { message: 'No such payment.' });
      return completeChallenge(ctx, params.attempt, body, payment.collectionId);
    },
    answer: {
      wire: CollectionPayResultWire,
      render: (result, rc) => payResultResource(result, rc.publicUrl),
    },
    graphql: false,
  }),
];
