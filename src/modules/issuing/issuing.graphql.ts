import { builder } from '../../graphql/builder.ts';
import {
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from './issuing.cards.ts';
import { DECLINE_REASONS, LIMIT_INTERVALS, mccName } from './issuing.controls.ts';
import { issuingAuthorizationMachine, virtualCardMachine } from './issuing.machine.ts';
import { getAuthorization, getVirtualCard, listAuthorizations, listVirtualCards } from './issuing.read.ts';
import type { IssuingAuthorizationRow, VirtualCardRow } from './issuing.resource.ts';
import * as bodies from './issuing.schema.ts';
import { captureAuthorization, refundAuthorization, reverseAuthorization } from './issuing.settle.ts';

const usd = (amount: bigint) => ({ amount, currency: 'USD' as const });

const IntervalEnum = builder.enumType('SpendingLimitInterval', { values: LIMIT_INTERVALS });
const CardStateEnum = builder.enumType('VirtualCardState', { values: virtualCardMachine.states });
const BrandEnum = builder.enumType('VirtualCardBrand', { values: ['visa', 'mastercard'] as const });

type StoredLimit = VirtualCardRow['spendingControls']['limits'][number];

const SpendingLimitRef = builder.objectRef<StoredLimit>('SpendingLimit').implement({
  fields: (t) => ({
    amount: t.field({ type: MoneyRef, resolve: (limit) => usd(BigInt(limit.amount)) }),
    interval: t.field({ type: IntervalEnum, resolve: (limit) => limit.interval as never }),
  }),
});

const SpendingControlsRef = builder
  .objectRef<VirtualCardRow['spendingControls']>('SpendingControls')
  .implement({
    fields: (t) => ({
      limits: t.field({ type: [SpendingLimitRef], resolve: (controls) => controls.limits }),
      allowedMccs: t.stringList({ nullable: true, resolve: (controls) => controls.allowed_mccs }),
      blockedMccs: t.stringList({ resolve: (controls) => controls.blocked_mccs }),
    }),
  });

export const IssuingAuthorizationRef = builder
  .objectRef<IssuingAuthorizationRow>('IssuingAuthorization')
  .implement({
    description: `An authorization on a virtual card. States: ${issuingAuthorizationMachine.states.join(', ')}. Decline reasons, in precedence: ${DECLINE_REASONS.join(', ')}.`,
    interfaces: [TransactionRef],
    isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'issuingAuthorization'),
    fields: (t) => ({
      virtualCardId: t.exposeString('cardId'),
      amountReversed: t.field({ type: MoneyRef, resolve: (row) => usd(row.amountReversed) }),
      amountCaptured: t.field({ type: MoneyRef, resolve: (row) => usd(row.amountCaptured) }),
      amountRefunded: t.field({ type: MoneyRef, resolve: (row) => usd(row.amountRefunded) }),
      merchantName: t.exposeString('merchantName'),
      merchantMcc: t.exposeString('merchantMcc'),
      merchantCategory: t.string({ nullable: true, resolve: (row) => mccName(row.merchantMcc) }),
      merchantCountry: t.exposeString('merchantCountry'),
      declineReason: t.exposeString('declineReason', { nullable: true }),
      declineInterval: t.exposeString('declineInterval', { nullable: true }),
      networkResponseCode: t.exposeString('networkResponseCode'),
      networkResponseMessage: t.string({
        nullable: true,
        resolve: (row) => networkResponseDescription(row.networkResponseCode),
      }),
      cardPaymentId: t.exposeString('cardPaymentId', { nullable: true }),
      expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.expiresAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
    }),
  });

export const VirtualCardRef = builder.objectRef<VirtualCardRow>('VirtualCard').implement({
  description:
    'A virtual card the merchant issued: brand and last 4 digits (virtualCardDetails has the number).',
  fields: (t) => ({
    id: t.exposeID('id'),
    brand: t.exposeString('brand'),
    last4: t.exposeString('last4'),
    expMonth: t.exposeInt('expMonth'),
    expYear: t.exposeInt('expYear'),
    cardholderName: t.exposeString('cardholderName'),
    state: t.field({ type: CardStateEnum, resolve: (row) => row.state }),
    spendingControls: t.field({ type: SpendingControlsRef, resolve: (row) => row.spendingControls }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
    authorizations: t.connection({
      type: IssuingAuthorizationRef,
      resolve: async (row, args, ctx) =>
        toConnection(await listAuthorizations(serviceContext(ctx), row.id, listQueryOf(args)), args),
    }),
  }),
});

const VirtualCardDetailsRef = builder.objectRef<VirtualCardRow>('VirtualCardDetails').implement({
  description:
    'A virtual card with its full number and CVC: only from createVirtualCard and virtualCardDetails.',
  fields: (t) => ({
    id: t.exposeID('id'),
    card: t.field({ type: VirtualCardRef, resolve: (row) => row }),
    number: t.exposeString('number'),
    cvc: t.exposeString('cvc'),
    expMonth: t.exposeInt('expMonth'),
    expYear: t.exposeInt('expYear'),
  }),
});

const LimitInput = builder.inputType('SpendingLimitInput', {
  fields: (t) => ({
    amount: t.field({ type: 'Decimal', required: true }),
    interval: t.field({ type: IntervalEnum, required: true }),
  }),
});

const ControlsInput = builder.inputType('SpendingControlsInput', {
  fields: (t) => ({
    limits: t.field({ type: [LimitInput] }),
    allowedMccs: t.stringList(),
    blockedMccs: t.stringList(),
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
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getVirtualCard(serviceContext(ctx), String(args.id))),
  }),
  virtualCardDetails: t.field({
    type: VirtualCardDetailsRef,
    nullable: true,
    description: 'GET /v1/virtual_cards/{id}/details: the full number and CVC.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getVirtualCard(serviceContext(ctx), String(args.id))),
  }),
  virtualCards: t.connection({
    type: VirtualCardRef,
    args: { state: t.arg({ type: CardStateEnum }) },
    resolve: async (_root, args, ctx) =>
      toConnection(
        await listVirtualCards(serviceContext(ctx), { ...listQueryOf(args), state: args.state ?? undefined }),
        args,
      ),
  }),
  issuingAuthorization: t.field({
    type: IssuingAuthorizationRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
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
      brand: t.arg({ type: BrandEnum, required: true }),
      cardholderName: t.arg.string({ required: true }),
      spendingControls: t.arg({ type: ControlsInput }),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
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
      id: t.arg.id({ required: true }),
      state: t.arg({ type: CardStateEnum }),
      spendingControls: t.arg({ type: ControlsInput }),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
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
      virtualCardId: t.arg.id({ required: true }),
      amount: t.arg({ type: 'Decimal', required: true }),
      merchantName: t.arg.string({ required: true }),
      merchantMcc: t.arg.string({ required: true }),
      merchantCountry: t.arg.string(),
      reference: t.arg.string(),
      idempotencyKey: t.arg.string(),
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
          id: t.arg.id({ required: true }),
          amount: t.arg({ type: 'Decimal' }),
          idempotencyKey: t.arg.string(),
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
