import { builder } from '../../graphql/builder.ts';
import {
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { withoutNulls } from '../../graphql/inputs.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { achTransferMachine, rtpTransferMachine } from './transfers.machine.ts';
import { RAILS } from './transfers.rails.ts';
import type { TransferRow } from './transfers.resource.ts';
import {
  cancelTransfer,
  createTransfer,
  getTransfer,
  listTransfers,
  simulateReturn,
  simulateSettle,
  simulateSubmit,
} from './transfers.service.ts';

const RailEnum = builder.enumType('TransferRail', { values: RAILS });
const DirectionEnum = builder.enumType('TransferDirection', { values: ['credit', 'debit'] as const });

const CounterpartyRef = builder.objectRef<TransferRow>('TransferCounterparty').implement({
  description: 'The account at the other end. Only the last 4 digits of its number are kept.',
  fields: (t) => ({
    name: t.exposeString('counterpartyName'),
    routingNumber: t.exposeString('routingNumber'),
    accountNumberLast4: t.exposeString('accountLast4'),
    accountType: t.exposeString('accountType'),
  }),
});

export const TransferRef = builder.objectRef<TransferRow>('Transfer').implement({
  description:
    `A bank transfer (API.md §5). ACH and Same-Day ACH: ${achTransferMachine.states.join(', ')}; ` +
    `RTP: ${rtpTransferMachine.states.join(', ')}.`,
  interfaces: [TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'transfer'),
  fields: (t) => ({
    rail: t.field({ type: RailEnum, resolve: (row) => row.rail as never }),
    direction: t.field({ type: DirectionEnum, resolve: (row) => row.direction as never }),
    counterparty: t.field({ type: CounterpartyRef, resolve: (row) => row }),
    secCode: t.exposeString('secCode', { nullable: true }),
    expectedSubmissionAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (row) => row.expectedSubmissionAt,
    }),
    submittedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.submittedAt }),
    expectedSettlementAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (row) => row.expectedSettlementAt,
    }),
    settledAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.settledAt }),
    returnedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.returnedAt }),
    returnCode: t.exposeString('returnCode', { nullable: true }),
    returnReason: t.exposeString('returnReason', { nullable: true }),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

const CounterpartyInput = builder.inputType('TransferCounterpartyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    routingNumber: t.string({ required: true }),
    accountNumber: t.string({ required: true }),
    accountType: t.string({ description: 'checking (default) or savings' }),
  }),
});

builder.queryFields((t) => ({
  transfer: t.field({
    type: TransferRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getTransfer(serviceContext(ctx), String(args.id))),
  }),
  transfers: t.connection({
    type: TransferRef,
    description: 'Bank transfers, newest first (first: 1-100, default 20).',
    args: { rail: t.arg({ type: RailEnum }), state: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      const query = { ...listQueryOf(args), rail: args.rail ?? undefined, state: args.state ?? undefined };
      return toConnection(await listTransfers(serviceContext(ctx), query), args);
    },
  }),
}));

const transferMutation = mutationsOf(getTransfer);

const stepArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  id: t.arg.id({ required: true }),
  idempotencyKey: t.arg.string(),
});

builder.mutationFields((t) => ({
  createTransfer: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/transfers: a credit sends money (held from available at once), a debit pulls it.',
    args: {
      rail: t.arg({ type: RailEnum, required: true }),
      direction: t.arg({ type: DirectionEnum, required: true }),
      amount: t.arg({ type: 'Decimal', required: true }),
      currency: t.arg.string({ required: true }),
      counterparty: t.arg({ type: CounterpartyInput, required: true }),
      secCode: t.arg.string({ description: 'ACH only: PPD, CCD (default) or WEB.' }),
      reference: t.arg.string(),
      description: t.arg.string(),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_root, args, ctx) => {
      const raw = withoutNulls({
        rail: args.rail,
        direction: args.direction,
        amount: args.amount,
        currency: args.currency,
        counterparty: withoutNulls({
          name: args.counterparty.name,
          routing_number: args.counterparty.routingNumber,
          account_number: args.counterparty.accountNumber,
          account_type: args.counterparty.accountType,
        }),
        sec_code: args.secCode,
        reference: args.reference,
        description: args.description,
        metadata: args.metadata,
      });
      return transferMutation(ctx, 'createTransfer', args.idempotencyKey, raw, (svc) =>
        createTransfer(svc, raw),
      );
    },
  }),
  cancelTransfer: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/transfers/{id}/cancel: an ACH transfer before submission.',
    args: stepArgs(t),
    resolve: (_root, args, ctx) =>
      transferMutation(ctx, 'cancelTransfer', args.idempotencyKey, { id: args.id }, (svc) =>
        cancelTransfer(svc, String(args.id)),
      ),
  }),
  simulateTransferSubmit: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/transfers/{id}/submit.',
    args: stepArgs(t),
    resolve: (_root, args, ctx) =>
      transferMutation(ctx, 'simulateTransferSubmit', args.idempotencyKey, { id: args.id }, (svc) =>
        simulateSubmit(svc, String(args.id)),
      ),
  }),
  simulateTransferSettle: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/transfers/{id}/settle.',
    args: stepArgs(t),
    resolve: (_root, args, ctx) =>
      transferMutation(ctx, 'simulateTransferSettle', args.idempotencyKey, { id: args.id }, (svc) =>
        simulateSettle(svc, String(args.id)),
      ),
  }),
  simulateTransferReturn: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/transfers/{id}/return: code defaults to R01 (debits) or R03 (credits).',
    args: { ...stepArgs(t), code: t.arg.string() },
    resolve: (_root, args, ctx) => {
      const raw = withoutNulls({ code: args.code });
      return transferMutation(
        ctx,
        'simulateTransferReturn',
        args.idempotencyKey,
        { id: args.id, ...raw },
        (svc) => simulateReturn(svc, String(args.id), raw),
      );
    },
  }),
}));
