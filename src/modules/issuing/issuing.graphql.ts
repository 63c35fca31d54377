import { builder, type GraphQLContext } from '../../graphql/builder.ts';
import { listQueryOf, mutationsOf, serviceContext, toConnection } from '../../graphql/context.ts';
import { descriptionOf, graphqlObject, inputFor } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { IDEMPOTENCY_KEY } from '../../graphql/texts.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { simulateAuthorization } from './issuing.authorize.ts';
import { type LimitInterval, mccName } from './issuing.controls.ts';
import { issuingOperations } from './issuing.operations.ts';
import {
  authorizationsByIds,
  getAuthorization,
  listAuthorizations,
  virtualCardsByIds,
} from './issuing.read.ts';
import {
  IssuingAuthorization,
  type IssuingAuthorizationRow,
  IssuingMerchantWire,
  SpendingControlsWire,
  SpendingLimitWire,
  VirtualCard,
  VirtualCardDetails,
  type VirtualCardRow,
} from './issuing.resource.ts';
import * as bodies from './issuing.schema.ts';

const IntervalEnum = enumOf(bodies.SpendingLimitIntervalValues);

type StoredControls = VirtualCardRow['spendingControls'];
const limit = SpendingLimitWire.shape;
const controls = SpendingControlsWire.shape;

const SpendingLimitRef = builder.objectRef<StoredControls['limits'][number]>('SpendingLimit').implement({
  description: SpendingLimitWire.description ?? '',
  fields: (t) => ({
    amount: t.field({
      type: MoneyRef,
      description: descriptionOf(limit.amount) ?? '',
      resolve: (row) => ({ amount: BigInt(row.amount), currency: 'USD' as const }),
    }),
    interval: t.field({
      type: IntervalEnum,
      description: descriptionOf(limit.interval) ?? '',
      resolve: (row) => row.interval as LimitInterval,
    }),
  }),
});

const SpendingControlsRef = builder.objectRef<StoredControls>('SpendingControls').implement({
  description: SpendingControlsWire.description ?? '',
  fields: (t) => ({
    limits: t.expose('limits', {
      type: [SpendingLimitRef],
      description: descriptionOf(controls.limits) ?? '',
    }),
    allowedMccs: t.stringList({
      nullable: true,
      description: descriptionOf(controls.allowed_mccs) ?? '',
      resolve: (row) => row.allowed_mccs,
    }),
    blockedMccs: t.stringList({
      description: descriptionOf(controls.blocked_mccs) ?? '',
      resolve: (row) => row.blocked_mccs,
    }),
  }),
});

const merchant = IssuingMerchantWire.shape;

const IssuingAuthorizationRef = graphqlObject<IssuingAuthorizationRow>(IssuingAuthorization, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'issuingAuthorization'),
  // The Transaction interface answers state, amount, reference and createdAt; approved is REST's.
  omit: ['state', 'amount', 'reference', 'created_at', 'approved'],
  names: { virtual_card: 'virtualCardId', card_payment: 'cardPaymentId' },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    merchantName: t.exposeString('merchantName', { description: descriptionOf(merchant.name) }),
    merchantMcc: t.exposeString('merchantMcc', { description: descriptionOf(merchant.mcc) }),
    merchantCategory: t.string({
      nullable: true,
      description: descriptionOf(merchant.category),
      resolve: (row: IssuingAuthorizationRow) => mccName(row.merchantMcc),
    }),
    merchantCountry: t.exposeString('merchantCountry', { description: descriptionOf(merchant.country) }),
  }),
});

const VirtualCardRef = graphqlObject<VirtualCardRow>(VirtualCard, {
  interfaces: [NodeRef],
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    spendingControls: t.field({
      type: SpendingControlsRef,
      description: 'What it may spend, and where.',
      resolve: (row: VirtualCardRow) => row.spendingControls,
    }),
    authorizations: t.connection({
      type: IssuingAuthorizationRef,
      description: 'Its authorizations, newest first (GET /v1/virtual_cards/{id}/authorizations).',
      resolve: async (row: VirtualCardRow, args: Parameters<typeof listQueryOf>[0], ctx: GraphQLContext) =>
        toConnection(await listAuthorizations(serviceContext(ctx), row.id, listQueryOf(args)), args),
    }),
  }),
});

graphqlObject<VirtualCardRow>(VirtualCardDetails, {
  // GraphQL answers the card itself (card) beside its number, CVC and expiry.
  omit: ['brand', 'last4', 'cardholder_name', 'state', 'metadata', 'created_at', 'updated_at'],
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    id: t.exposeID('id', {
      description:
        "The card's id (the same as card.id: these are the card's details, not an object of their own).",
    }),
    card: t.field({ type: VirtualCardRef, description: 'The card.', resolve: (row: VirtualCardRow) => row }),
  }),
});

nodeKind('virtualCard', VirtualCardRef, virtualCardsByIds);
nodeKind('issuingAuthorization', IssuingAuthorizationRef, authorizationsByIds);

const controlsInput = bodies.spendingControlsSchema.shape;

const LimitInput = builder.inputType('SpendingLimitInput', {
  description: SpendingLimitWire.description ?? '',
  fields: (t) => ({
    amount: t.field({ type: 'Decimal', required: true, description: descriptionOf(limit.amount) ?? '' }),
    interval: t.field({
      type: IntervalEnum,
      required: true,
      description: descriptionOf(limit.interval) ?? '',
    }),
  }),
});

const ControlsInput = builder.inputType('SpendingControlsInput', {
  description: "A card's spending controls; they replace the card's controls as a whole.",
  fields: (t) => ({
    limits: t.field({ type: [LimitInput], description: descriptionOf(controlsInput.limits) ?? '' }),
    allowedMccs: t.stringList({ description: descriptionOf(controlsInput.allowed_mccs) ?? '' }),
    blockedMccs: t.stringList({ description: descriptionOf(controlsInput.blocked_mccs) ?? '' }),
  }),
});

inputFor(bodies.spendingControlsSchema, ControlsInput);
mountGraphqlOperations(issuingOperations);

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
const simulate = bodies.simulateAuthorizationSchema.shape;
const asked = simulate.merchant.shape;
const authorizationMutation = mutationsOf(getAuthorization);

builder.mutationFields((t) => ({
  simulateIssuingAuthorization: t.field({
    type: IssuingAuthorizationRef,
    errors: { types: [SandbankError] },
    description:
      'A merchant asks to charge the virtual card: approved (funds held) or declined with a reason.',
    args: {
      virtualCardId: t.arg.id({ required: true, description: "The card's id (vc_…)." }),
      amount: t.arg({ type: 'Decimal', required: true, description: descriptionOf(simulate.amount) }),
      merchantName: t.arg.string({ required: true, description: descriptionOf(asked.name) }),
      merchantMcc: t.arg.string({ required: true, description: descriptionOf(asked.mcc) }),
      merchantCountry: t.arg.string({ description: descriptionOf(asked.country) }),
      reference: t.arg.string({ description: descriptionOf(simulate.reference) }),
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
}));
