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
import { CREATED_AT, IDEMPOTENCY_KEY, METADATA, STORED_METADATA, UPDATED_AT } from '../../graphql/texts.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from './issuing.cards.ts';
import { DECLINE_REASONS, type DeclineReason, type LimitInterval, mccName } from './issuing.controls.ts';
import { issuingAuthorizationMachine, type VirtualCardState } from './issuing.machine.ts';
import {
  authorizationsByIds,
  getAuthorization,
  getVirtualCard,
  listAuthorizations,
  listVirtualCards,
  virtualCardsByIds,
} from './issuing.read.ts';
import type { IssuingAuthorizationRow, VirtualCardRow } from './issuing.resource.ts';
import * as bodies from './issuing.schema.ts';
import { captureAuthorization, refundAuthorization, reverseAuthorization } from './issuing.settle.ts';

const usd = (amount: bigint) => ({ amount, currency: 'USD' as const });

const IntervalEnum = describedEnum(
  'SpendingLimitInterval',
  "The window a spending limit counts over: calendar windows in UTC, on the merchant's clock.",
  {
    per_authorization: 'Each authorization alone.',
    daily: 'A calendar day, from 00:00 UTC.',
    weekly: 'A calendar week, from Monday 00:00 UTC.',
    monthly: 'A calendar month, from the 1st.',
    yearly: 'A calendar year, from January 1st.',
    all_time: 'Everything the card ever spent.',
  } satisfies Record<LimitInterval, string>,
);

const CardStateEnum = describedEnum('VirtualCardState', 'Where a virtual card stands.', {
  active: 'Authorizations are decided by its controls and the balance.',
  frozen: 'Every authorization is declined (card_frozen) until it is unfrozen.',
  canceled: 'Every authorization is declined (card_canceled), for good.',
} satisfies Record<VirtualCardState, string>);

type VirtualCardBrand = 'visa' | 'mastercard';

const BrandEnum = describedEnum('VirtualCardBrand', 'The network a virtual card is issued on.', {
  visa: 'Visa.',
  mastercard: 'Mastercard.',
} satisfies Record<VirtualCardBrand, string>);

const DeclineReasonEnum = describedEnum(
  'IssuingDeclineReason',
  'Why an authorization on a virtual card was declined; when several apply, the first listed here wins.',
  {
    card_canceled: 'The card is canceled.',
    card_frozen: 'The card is frozen.',
    card_expired: 'The card is past its expiry month.',
    mcc_blocked: "The merchant's category is among the card's blocked ones.",
    mcc_not_allowed: "The card allows only some categories, and the merchant's is not one of them.",
    spending_limit_exceeded: 'A spending limit would be exceeded (declineInterval names its window).',
    insufficient_funds: 'The available USD balance cannot fund it.',
  } satisfies Record<DeclineReason, string>,
);

type StoredLimit = VirtualCardRow['spendingControls']['limits'][number];

const SpendingLimitRef = builder.objectRef<StoredLimit>('SpendingLimit').implement({
  description: 'A cap on what a card may spend in a window.',
  fields: (t) => ({
    amount: t.field({
      type: MoneyRef,
      description: 'The most the card may spend in the window, in USD.',
      resolve: (limit) => usd(BigInt(limit.amount)),
    }),
    interval: t.field({
      type: IntervalEnum,
      description: 'The window it counts over.',
      resolve: (limit) => limit.interval as LimitInterval,
    }),
  }),
});

const SpendingControlsRef = builder
  .objectRef<VirtualCardRow['spendingControls']>('SpendingControls')
  .implement({
    description: 'What a virtual card may spend, and where.',
    fields: (t) => ({
      limits: t.field({
        type: [SpendingLimitRef],
        description: 'Spending limits; every one applies.',
        resolve: (controls) => controls.limits,
      }),
      allowedMccs: t.stringList({
        nullable: true,
        description: 'When set, only these merchant category codes are allowed.',
        resolve: (controls) => controls.allowed_mccs,
      }),
      blockedMccs: t.stringList({
        description: 'Merchant category codes that are declined.',
        resolve: (controls) => controls.blocked_mccs,
      }),
    }),
  });

export const IssuingAuthorizationRef = builder
  .objectRef<IssuingAuthorizationRow>('IssuingAuthorization')
  .implement({
    description: `An authorization on a virtual card. States: ${issuingAuthorizationMachine.states.join(', ')}. Decline reasons, in precedence: ${DECLINE_REASONS.join(', ')}.`,
    interfaces: [NodeRef, TransactionRef],
    isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'issuingAuthorization'),
    fields: (t) => ({
      virtualCardId: t.exposeString('cardId', { description: 'The id of the virtual card it was made on.' }),
      amountReversed: t.field({
        type: MoneyRef,
        description: 'How much of the hold was released back to the card.',
        resolve: (row) => usd(row.amountReversed),
      }),
      amountCaptured: t.field({
        type: MoneyRef,
        description: 'How much was captured (spent).',
        resolve: (row) => usd(row.amountCaptured),
      }),
      amountRefunded: t.field({
        type: MoneyRef,
        description: 'How much of the captured amount the merchant refunded.',
        resolve: (row) => usd(row.amountRefunded),
      }),
      merchantName: t.exposeString('merchantName', {
        description: 'The name of the merchant the card paid.',
      }),
      merchantMcc: t.exposeString('merchantMcc', { description: "The merchant's category code (4 digits)." }),
      merchantCategory: t.string({
        nullable: true,
        description: "The category code's name, when the code is known.",
        resolve: (row) => mccName(row.merchantMcc),
      }),
      merchantCountry: t.exposeString('merchantCountry', {
        description: "The merchant's country (ISO 3166-1 alpha-2).",
      }),
      declineReason: t.field({
        type: DeclineReasonEnum,
        nullable: true,
        description: 'Why it was declined (state declined).',
        resolve: (row) => row.declineReason as DeclineReason | null,
      }),
      declineInterval: t.field({
        type: IntervalEnum,
        nullable: true,
        description: 'The window of the limit it exceeded (declineReason spending_limit_exceeded).',
        resolve: (row) => row.declineInterval as LimitInterval | null,
      }),
      networkResponseCode: t.exposeString('networkResponseCode', {
        description: 'The ISO 8583 response code the issuer answered with ("00" approved).',
      }),
      networkResponseMessage: t.string({
        nullable: true,
        description: 'What networkResponseCode means.',
        resolve: (row) => networkResponseDescription(row.networkResponseCode),
      }),
      cardPaymentId: t.exposeString('cardPaymentId', {
        nullable: true,
        description:
          "The card payment on this sandbox that made it (a payment with one of the merchant's virtual cards).",
      }),
      expiresAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'While approved: when the hold lapses (state expired), clock time.',
        resolve: (row) => row.expiresAt,
      }),
      updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
    }),
  });

export const VirtualCardRef = builder.objectRef<VirtualCardRow>('VirtualCard').implement({
  description:
    'A virtual card the merchant issued: brand and last 4 digits (virtualCardDetails has the number).',
  interfaces: [NodeRef],
  fields: (t) => ({
    brand: t.field({
      type: BrandEnum,
      description: 'The network it is issued on.',
      resolve: (row) => row.brand as VirtualCardBrand,
    }),
    last4: t.exposeString('last4', { description: 'The last 4 digits of its number.' }),
    expMonth: t.exposeInt('expMonth', { description: 'Its expiry month, 1-12.' }),
    expYear: t.exposeInt('expYear', { description: 'Its expiry year.' }),
    cardholderName: t.exposeString('cardholderName', { description: 'The name on the card.' }),
    state: t.field({ type: CardStateEnum, description: 'Where it stands.', resolve: (row) => row.state }),
    spendingControls: t.field({
      type: SpendingControlsRef,
      description: 'What it may spend, and where.',
      resolve: (row) => row.spendingControls,
    }),
    metadata: t.field({
      type: 'JSONObject',
      description: STORED_METADATA,
      resolve: (row) => row.metadata,
    }),
    createdAt: t.field({ type: 'DateTime', description: CREATED_AT, resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
    authorizations: t.connection({
      type: IssuingAuthorizationRef,
      description: 'Its authorizations, newest first (GET /v1/virtual_cards/{id}/authorizations).',
      resolve: async (row, args, ctx) =>
        toConnection(await listAuthorizations(serviceContext(ctx), row.id, listQueryOf(args)), args),
    }),
  }),
});

const VirtualCardDetailsRef = builder.objectRef<VirtualCardRow>('VirtualCardDetails').implement({
  description:
    'A virtual card with its full number and CVC: only from createVirtualCard and virtualCardDetails.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description:
        "The card's id (the same as card.id: these are the card's details, not an object of their own).",
    }),
    card: t.field({ type: VirtualCardRef, description: 'The card.', resolve: (row) => row }),
    number: t.exposeString('number', { description: 'The full card number.' }),
    cvc: t.exposeString('cvc', { description: 'The card verification code.' }),
    expMonth: t.exposeInt('expMonth', { description: 'Its expiry month, 1-12.' }),
    expYear: t.exposeInt('expYear', { description: 'Its expiry year.' }),
  }),
});

nodeKind('virtualCard', VirtualCardRef, virtualCardsByIds);
nodeKind('issuingAuthorization', IssuingAuthorizationRef, authorizationsByIds);

const LimitInput = builder.inputType('SpendingLimitInput', {
  description: 'A cap on what a card may spend in a window.',
  fields: (t) => ({
    amount: t.field({ type: 'Decimal', required: true, description: 'The most it may spend, in USD.' }),
    interval: t.field({ type: IntervalEnum, required: true, description: 'The window it counts over.' }),
  }),
});

const ControlsInput = builder.inputType('SpendingControlsInput', {
  description: "A card's spending controls; they replace the card's controls as a whole.",
  fields: (t) => ({
    limits: t.field({ type: [LimitInput], description: 'Spending limits (at most 20); every one applies.' }),
    allowedMccs: t.stringList({
      description: 'Only these merchant category codes are allowed (at most 200).',
    }),
    blockedMccs: t.stringList({ description: 'These merchant category codes are declined (at most 200).' }),
  }),
});

const createVirtualCardBody = wireInput(
  'createVirtualCard',
  bodies.createVirtualCardSchema,
  bodies.virtualCardFieldCodes,
);
const updateVirtualCardBody = wireInput(
  'updateVirtualCard',
  bodies.updateVirtualCardSchema,
  bodies.updateVirtualCardFieldCodes,
  { path: ['id'] },
);
const simulateAuthorizationBody = wireInput(
  'simulateIssuingAuthorization',
  bodies.simulateAuthorizationSchema,
  bodies.authorizationFieldCodes,
  {
    moves: {
      merchantName: 'merchant.name',
      merchantMcc: 'merchant.mcc',
      merchantCountry: 'merchant.country',
    },
    path: ['virtualCardId'],
  },
);

/** capture, reverse and refund: the mutation, its REST step, its service, and its `{amount?}` body. */
const amountSteps = (
  [
    ['captureIssuingAuthorization', 'capture', captureAuthorization],
    ['reverseIssuingAuthorization', 'reverse', reverseAuthorization],
    ['refundIssuingAuthorization', 'refund', refundAuthorization],
  ] as const
).map(([name, path, run]) => ({
  name,
  path,
  run,
  input: wireInput(name, bodies.authorizationAmountSchema, bodies.authorizationAmountFieldCodes, {
    path: ['id'],
  }),
}));

builder.queryFields((t) => ({
  virtualCard: t.field({
    type: VirtualCardRef,
    nullable: true,
    description: 'A virtual card by its id (GET /v1/virtual_cards/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The card's id (vc_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getVirtualCard(serviceContext(ctx), String(args.id))),
  }),
  virtualCardDetails: t.field({
    type: VirtualCardDetailsRef,
    nullable: true,
    description: 'GET /v1/virtual_cards/{id}/details: the full number and CVC.',
    args: { id: t.arg.id({ required: true, description: "The card's id (vc_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getVirtualCard(serviceContext(ctx), String(args.id))),
  }),
  virtualCards: t.connection({
    type: VirtualCardRef,
    description: 'Virtual cards, newest first (GET /v1/virtual_cards).',
    args: { state: t.arg({ type: CardStateEnum, description: 'Only cards in this state.' }) },
    resolve: async (_root, args, ctx) =>
      toConnection(
        await listVirtualCards(serviceContext(ctx), { ...listQueryOf(args), state: args.state ?? undefined }),
        args,
      ),
  }),
  issuingAuthorization: t.field({
    type: IssuingAuthorizationRef,
    nullable: true,
    description:
      'An authorization on a virtual card by its id (GET /v1/issuing_authorizations/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The authorization's id (iauth_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getAuthorization(serviceContext(ctx), String(args.id))),
  }),
}));

const cardMutation = mutationsOf(getVirtualCard);
const authorizationMutation = mutationsOf(getAuthorization);

builder.mutationFields((t) => ({
  createVirtualCard: t.field({
    type: VirtualCardDetailsRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/virtual_cards: the one answer (besides virtualCardDetails) with number and CVC.',
    args: {
      brand: t.arg({ type: BrandEnum, required: true, description: 'The network to issue it on.' }),
      cardholderName: t.arg.string({
        required: true,
        description: 'The name on the card (1-100 characters).',
      }),
      spendingControls: t.arg({ type: ControlsInput, description: 'What it may spend, and where.' }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = createVirtualCardBody.body(args);
      return cardMutation(ctx, 'createVirtualCard', args.idempotencyKey, body, (svc) =>
        createVirtualCard(svc, createVirtualCardBody.parse(body)),
      );
    },
  }),
  updateVirtualCard: t.field({
    type: VirtualCardRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/virtual_cards/{id}: freeze, unfreeze, cancel; replace controls or metadata.',
    args: {
      id: t.arg.id({ required: true, description: "The card's id." }),
      state: t.arg({
        type: CardStateEnum,
        description: 'frozen freezes it, active unfreezes it, canceled cancels it for good.',
      }),
      spendingControls: t.arg({ type: ControlsInput, description: "Replaces the card's controls." }),
      metadata: t.arg({ type: 'JSONObject', description: `Replaces the card's metadata. ${METADATA}` }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = updateVirtualCardBody.body(args);
      return cardMutation(ctx, 'updateVirtualCard', args.idempotencyKey, { id: args.id, ...body }, (svc) =>
        updateVirtualCard(svc, String(args.id), updateVirtualCardBody.parse(body)),
      );
    },
  }),
  simulateIssuingAuthorization: t.field({
    type: IssuingAuthorizationRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/virtual_cards/{id}/authorizations: approved or declined with a reason.',
    args: {
      virtualCardId: t.arg.id({ required: true, description: "The card's id." }),
      amount: t.arg({
        type: 'Decimal',
        required: true,
        description: 'How much the merchant asks for, in USD.',
      }),
      merchantName: t.arg.string({ required: true, description: "The merchant's name (1-100 characters)." }),
      merchantMcc: t.arg.string({ required: true, description: "The merchant's category code (4 digits)." }),
      merchantCountry: t.arg.string({
        description: "The merchant's country, ISO 3166-1 alpha-2 (default US).",
      }),
      reference: t.arg.string({ description: "The merchant's reference, up to 100 characters." }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = simulateAuthorizationBody.body(args);
      return authorizationMutation(
        ctx,
        'simulateIssuingAuthorization',
        args.idempotencyKey,
        { card: args.virtualCardId, ...body },
        (svc) =>
          simulateAuthorization(svc, String(args.virtualCardId), simulateAuthorizationBody.parse(body)),
      );
    },
  }),
  ...Object.fromEntries(
    amountSteps.map(({ name, path, run, input }) => [
      name,
      t.field({
        type: IssuingAuthorizationRef,
        errors: { types: [SandbankError] },
        description: `POST /v1/simulate/issuing_authorizations/{id}/${path} {amount?}.`,
        args: {
          id: t.arg.id({ required: true, description: "The authorization's id." }),
          amount: t.arg({ type: 'Decimal', description: `How much to ${path} (default: all that can be).` }),
          idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
        },
        resolve: (_root, args, ctx) => {
          const body = input.body(args);
          return authorizationMutation(ctx, name, args.idempotencyKey, { id: args.id, ...body }, (svc) =>
            run(svc, String(args.id), input.parse(body)),
          );
        },
      }),
    ]),
  ),
}));
