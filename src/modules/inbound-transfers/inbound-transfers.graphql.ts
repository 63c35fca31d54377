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
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import {
  DESCRIPTION,
  IDEMPOTENCY_KEY,
  METADATA,
  REFERENCE,
  STORED_DESCRIPTION,
  STORED_METADATA,
  UPDATED_AT,
} from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { RailEnum } from '../transfers/transfers.graphql.ts';
import type { Rail } from '../transfers/transfers.rails.ts';
import { INBOUND_STATES, type InboundState } from './inbound-transfers.machine.ts';
import { type InboundTransferRow, inboundReturnDeadline } from './inbound-transfers.resource.ts';
import {
  createInboundTransferFieldCodes,
  createInboundTransferSchema,
  returnInboundTransferSchema,
} from './inbound-transfers.schema.ts';
import {
  createInboundTransfer,
  getInboundTransfer,
  inboundTransfersByIds,
  listInboundTransfers,
  returnInboundTransfer,
  settleInboundTransfer,
} from './inbound-transfers.service.ts';

const InboundStateEnum = describedEnum('InboundTransferState', 'The state of an inbound transfer.', {
  pending: 'ACH: sent by the originator, travelling in its FedACH window (a credit is in pending).',
  settled: 'ACH: settled (a credit is available; a debit has taken the money).',
  returned: 'ACH: sent back by the merchant with a Nacha return code.',
  completed: 'RTP or FedNow: the credit arrived and is available (irrevocable).',
} satisfies Record<InboundState, string>);

const DirectionArg = describedEnum('InboundTransferDirection', 'Which way an inbound transfer moves money.', {
  credit: 'The originator sends the merchant money.',
  debit: "The originator pulls money from the merchant's account (ACH only).",
});

const OriginatorRef = builder.objectRef<InboundTransferRow>('InboundOriginator').implement({
  description: 'The outside account an inbound transfer comes from (its number masked to the last 4 digits).',
  fields: (t) => ({
    name: t.exposeString('originatorName', { description: "The originator's name." }),
    routingNumber: t.exposeString('originatorRoutingNumber', {
      description: "Its bank's ABA routing number.",
    }),
    accountNumberLast4: t.exposeString('originatorAccountLast4', {
      description: 'The last 4 digits of its account number.',
    }),
  }),
});

export const InboundTransferRef = builder.objectRef<InboundTransferRow>('InboundTransfer').implement({
  description: `Money from an outside originator: a credit to the merchant or a debit of it. States: ${INBOUND_STATES.join(', ')}.`,
  interfaces: [NodeRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'inboundTransfer'),
  fields: (t) => ({
    rail: t.field({
      type: RailEnum,
      description: 'The rail it arrived on.',
      resolve: (row) => row.rail as Rail,
    }),
    direction: t.field({
      type: DirectionArg,
      description: 'credit: the originator sends money; debit: it pulls money (ACH only).',
      resolve: (row) => row.direction as 'credit' | 'debit',
    }),
    state: t.field({
      type: InboundStateEnum,
      description: 'Where it stands.',
      resolve: (row) => row.state,
    }),
    amount: t.field({
      type: MoneyRef,
      description: 'How much it moves, in its currency (USD).',
      resolve: (row) => ({ amount: row.amount, currency: row.currency as CurrencyCode }),
    }),
    originator: t.field({ type: OriginatorRef, description: 'Where it comes from.', resolve: (row) => row }),
    secCode: t.exposeString('secCode', {
      nullable: true,
      description: 'The ACH SEC code; null on RTP and FedNow.',
    }),
    expectedArrivalAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'ACH: the cut-off of the FedACH window it travels in.',
      resolve: (row) => row.expectedArrivalAt,
    }),
    expectedSettlementAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'ACH: when it settles.',
      resolve: (row) => row.expectedSettlementAt,
    }),
    settledAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'ACH: when it settled.',
      resolve: (row) => row.settledAt,
    }),
    completedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'RTP and FedNow: when it completed.',
      resolve: (row) => row.completedAt,
    }),
    returnedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the merchant returned it.',
      resolve: (row) => row.returnedAt,
    }),
    returnDeadline: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'Settled ACH entries: the end of the 2-banking-day return window (60 calendar days for R05, R07, R10, R11).',
      resolve: (row) => inboundReturnDeadline(row),
    }),
    returnCode: t.exposeString('returnCode', {
      nullable: true,
      description: 'The Nacha code it was returned with.',
    }),
    returnReason: t.exposeString('returnReason', {
      nullable: true,
      description: 'The title of the return code.',
    }),
    reference: t.exposeString('reference', { nullable: true, description: "The merchant's reference." }),
    description: t.exposeString('description', { nullable: true, description: STORED_DESCRIPTION }),
    metadata: t.field({ type: 'JSONObject', description: STORED_METADATA, resolve: (row) => row.metadata }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was created, clock time.',
      resolve: (row) => row.createdAt,
    }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
  }),
});

nodeKind('inboundTransfer', InboundTransferRef, inboundTransfersByIds);

const OriginatorInput = builder.inputType('InboundOriginatorInput', {
  description: 'The outside account an inbound transfer comes from.',
  fields: (t) => ({
    name: t.string({ required: true, description: "The originator's name." }),
    routingNumber: t.string({
      required: true,
      description: 'The ABA routing number (9 digits, checksummed).',
    }),
    accountNumber: t.string({ required: true, description: 'The account number (4-17 digits).' }),
  }),
});

const createBody = wireInput(
  'simulateInboundTransfer',
  createInboundTransferSchema,
  createInboundTransferFieldCodes,
);
const returnBody = wireInput('returnInboundTransfer', returnInboundTransferSchema, undefined, {
  path: ['id'],
});
const run = mutationsOf(getInboundTransfer);

builder.queryFields((t) => ({
  inboundTransfer: t.field({
    type: InboundTransferRef,
    nullable: true,
    description:
      'An inbound transfer by its id (GET /v1/inbound_transfers/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The inbound transfer's id (itr_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getInboundTransfer(serviceContext(ctx), String(args.id))),
  }),
  inboundTransfers: t.connection({
    type: InboundTransferRef,
    description: 'Inbound transfers, newest first (first: 1-100, default 20).',
    args: {
      rail: t.arg({ type: RailEnum, description: 'Only inbound transfers on this rail.' }),
      state: t.arg({ type: InboundStateEnum, description: 'Only inbound transfers in this state.' }),
    },
    resolve: async (_root, args, ctx) => {
      const query = {
        ...listQueryOf(args),
        rail: args.rail ?? undefined,
        state: args.state ?? undefined,
      };
      return toConnection(await listInboundTransfers(serviceContext(ctx), query), args);
    },
  }),
}));

builder.mutationFields((t) => ({
  simulateInboundTransfer: t.field({
    type: InboundTransferRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/simulate/inbound_transfers: an outside originator sends (credit) or pulls (debit) money.',
    args: {
      rail: t.arg({ type: RailEnum, required: true, description: 'The rail it arrives on.' }),
      direction: t.arg({ type: DirectionArg, required: true, description: 'credit or debit (ACH only).' }),
      amount: t.arg({ type: 'Decimal', required: true, description: 'How much, in major units.' }),
      currency: t.arg({ type: CurrencyCodeEnum, required: true, description: 'USD.' }),
      originator: t.arg({ type: OriginatorInput, required: true, description: 'Where it comes from.' }),
      secCode: t.arg.string({ description: 'ACH only: PPD, CCD (default) or WEB.' }),
      reference: t.arg.string({ description: REFERENCE }),
      description: t.arg.string({ description: DESCRIPTION }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = createBody.body(args);
      return run(ctx, 'simulateInboundTransfer', args.idempotencyKey, body, (svc) =>
        createInboundTransfer(svc, createBody.parse(body)),
      );
    },
  }),
  simulateInboundTransferSettle: t.field({
    type: InboundTransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/inbound_transfers/{id}/settle.',
    args: {
      id: t.arg.id({ required: true, description: "The inbound transfer's id." }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, a, ctx) =>
      run(ctx, 'simulateInboundTransferSettle', a.idempotencyKey, { id: a.id }, (svc) =>
        settleInboundTransfer(svc, String(a.id)),
      ),
  }),
  returnInboundTransfer: t.field({
    type: InboundTransferRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/inbound_transfers/{id}/return {code}: the merchant sends a settled ACH entry back.',
    args: {
      id: t.arg.id({ required: true, description: "The inbound transfer's id." }),
      code: t.arg.string({ required: true, description: 'The Nacha return code (e.g. R10, R29, R23).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, a, ctx) => {
      const body = returnBody.body(a);
      return run(ctx, 'returnInboundTransfer', a.idempotencyKey, { id: a.id, ...body }, (svc) =>
        returnInboundTransfer(svc, String(a.id), returnBody.parse(body)),
      );
    },
  }),
}));
