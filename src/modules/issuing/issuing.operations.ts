import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from './issuing.cards.ts';
import { virtualCardMachine } from './issuing.machine.ts';
import { getAuthorization, getVirtualCard, listAuthorizations, listVirtualCards } from './issuing.read.ts';
import { IssuingAuthorization, VirtualCard, VirtualCardDetails } from './issuing.resource.ts';
import * as bodies from './issuing.schema.ts';
import { captureAuthorization, refundAuthorization, reverseAuthorization } from './issuing.settle.ts';

/** The operations on virtual cards and their authorizations, each declared once: its REST route and its GraphQL field. */

const cardId = z.object({ id: z.string().min(1).max(255).describe("The card's id (vc_…).") });
const authorizationId = z.object({
  id: z.string().min(1).max(255).describe("The authorization's id (iauth_…)."),
});
const TAGS = ['Virtual cards'];

/** capture, reverse and refund: the same `{amount?}` body, each with its own service. */
const amountSteps = (
  [
    [
      'capture',
      'Clear an approved authorization (the amount may differ from the authorized one)',
      captureAuthorization,
    ],
    [
      'reverse',
      'Reverse an approved authorization in full or in part (frees the hold and the limit)',
      reverseAuthorization,
    ],
    [
      'refund',
      'Refund a captured authorization in full or in part (money back; the limit stays used)',
      refundAuthorization,
    ],
  ] as const
).map(([verb, summary, run]) =>
  defineOperation({
    name: `${verb}IssuingAuthorization`,
    method: 'post',
    path: `/simulate/issuing_authorizations/{id}/${verb}`,
    tags: ['Simulation'],
    summary,
    params: authorizationId,
    body: bodies.amountBodyOf(verb),
    optionalBody: true,
    codes: bodies.authorizationAmountFieldCodes,
    errors: ['invalid_state', 'amount_invalid'],
    output: IssuingAuthorization,
    run: (ctx, { params, body }) => run(ctx, params.id, body),
    graphql: { reload: getAuthorization },
  }),
);

export const issuingOperations = [
  defineOperation({
    name: 'createVirtualCard',
    method: 'post',
    path: '/virtual_cards',
    tags: TAGS,
    summary:
      'Issue a virtual Visa or Mastercard with spending controls (the only response with number and CVC besides /details)',
    body: bodies.createVirtualCardSchema,
    codes: bodies.virtualCardFieldCodes,
    errors: ['currency_unsupported', 'amount_invalid'],
    output: VirtualCardDetails,
    run: (ctx, { body }) => createVirtualCard(ctx, body),
    // GraphQL takes no currency: virtual cards spend USD.
    graphql: { reload: getVirtualCard, omit: ['currency'] },
  }),
  defineOperation({
    name: 'listVirtualCards',
    method: 'get',
    path: '/virtual_cards',
    tags: TAGS,
    summary: 'List virtual cards, newest first',
    query: listQuerySchema.extend({
      state: z.enum(virtualCardMachine.states).optional().describe('Only the cards in this state.'),
    }),
    output: VirtualCard,
    list: true,
    run: (ctx, { query }) => listVirtualCards(ctx, query),
    graphql: { name: 'virtualCards', filters: { state: 'state' } },
  }),
  defineOperation({
    name: 'getVirtualCard',
    method: 'get',
    path: '/virtual_cards/{id}',
    tags: TAGS,
    summary: 'Get a virtual card (brand and last 4 digits only)',
    params: cardId,
    output: VirtualCard,
    run: (ctx, { params }) => getVirtualCard(ctx, params.id),
    graphql: { name: 'virtualCard' },
  }),
  defineOperation({
    name: 'getVirtualCardDetails',
    method: 'get',
    path: '/virtual_cards/{id}/details',
    tags: TAGS,
    summary: "A virtual card's full number, CVC and expiry",
    params: cardId,
    output: VirtualCardDetails,
    run: (ctx, { params }) => getVirtualCard(ctx, params.id),
    graphql: { name: 'virtualCardDetails' },
  }),
  defineOperation({
    name: 'updateVirtualCard',
    method: 'post',
    path: '/virtual_cards/{id}',
    tags: TAGS,
    summary: 'Freeze, unfreeze or cancel a virtual card, or replace its spending controls or metadata',
    params: cardId,
    body: bodies.updateVirtualCardSchema,
    codes: bodies.updateVirtualCardFieldCodes,
    errors: ['invalid_state', 'amount_invalid'],
    output: VirtualCard,
    run: (ctx, { params, body }) => updateVirtualCard(ctx, params.id, body),
    graphql: { reload: getVirtualCard },
  }),
  // GraphQL's simulateIssuingAuthorization is written by hand (issuing.graphql.ts): it names the
  // card virtualCardId and takes the merchant's fields at the top level (merchantName, …).
  defineOperation({
    name: 'authorizeVirtualCard',
    method: 'post',
    path: '/simulate/virtual_cards/{id}/authorizations',
    tags: ['Simulation'],
    summary: 'A merchant asks to charge the virtual card: approved (funds held) or declined with a reason',
    params: cardId,
    body: bodies.simulateAuthorizationSchema,
    codes: bodies.authorizationFieldCodes,
    errors: ['amount_invalid', 'currency_unsupported'],
    output: IssuingAuthorization,
    run: (ctx, { params, body }) => simulateAuthorization(ctx, params.id, body),
    graphql: false,
  }),
  // GraphQL reads a card's authorizations as its authorizations connection (issuing.graphql.ts).
  defineOperation({
    name: 'listVirtualCardAuthorizations',
    method: 'get',
    path: '/virtual_cards/{id}/authorizations',
    tags: TAGS,
    summary: "A virtual card's authorizations, newest first",
    params: cardId,
    query: listQuerySchema,
    output: IssuingAuthorization,
    list: true,
    run: (ctx, { params, query }) => listAuthorizations(ctx, params.id, query),
    graphql: false,
  }),
  defineOperation({
    name: 'getIssuingAuthorization',
    method: 'get',
    path: '/issuing_authorizations/{id}',
    tags: TAGS,
    summary: 'Get an issuing authorization',
    params: authorizationId,
    output: IssuingAuthorization,
    run: (ctx, { params }) => getAuthorization(ctx, params.id),
    graphql: { name: 'issuingAuthorization' },
  }),
  ...amountSteps,
];
