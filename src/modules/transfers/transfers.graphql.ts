import { builder } from '../../graphql/builder.ts';
import {
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { createPayout, createTransfer } from './transfers.create.ts';
import { type EntryKind, statesOf } from './transfers.machine.ts';
import { RAILS } from './transfers.rails.ts';
import { getPayout, getTransfer, listPayouts, listTransfers } from './transfers.read.ts';
import { payoutArrivalAt, payoutInTransitAt, type TransferRow } from './transfers.resource.ts';
import {
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
  returnTransferSchema,
} from './transfers.schema.ts';
import { type EntrySteps, payoutSteps, transferSteps } from './transfers.steps.ts';

const RailEnum = builder.enumType('TransferRail', { values: RAILS });
const DirectionEnum = builder.enumType('TransferDirection', { values: ['credit', 'debit'] as const });

const CounterpartyRef = builder.objectRef<TransferRow>('TransferCounterparty').implement({
  description:
    "The account at the other end (a payout's destination). Only the last 4 digits of its number are kept.",
  fields: (t) => ({
    name: t.exposeString('counterpartyName'),
    routingNumber: t.exposeString('routingNumber'),
    accountNumberLast4: t.exposeString('accountLast4'),
    accountType: t.exposeString('accountType'),
  }),
});

export const TransferRef = builder.objectRef<TransferRow>('Transfer').implement({
  description: `A bank transfer. States: ${statesOf('transfer').join(', ')}.`,
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
    collection: t.exposeString('collectionId', {
      nullable: true,
      description: 'The id of the collection this debit pays (its checkout was paid by bank account).',
    }),
    description: t.exposeString('description', { nullable: true }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

export const PayoutRef = builder.objectRef<TransferRow>('Payout').implement({
  description: `A payout of available USD to the merchant's own bank account. States: ${statesOf('payout').join(', ')}.`,
  interfaces: [TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'payout'),
  fields: (t) => ({
    method: t.field({ type: RailEnum, resolve: (row) => row.rail as never }),
    destination: t.field({ type: CounterpartyRef, resolve: (row) => row }),
    expectedSubmissionAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (row) => row.expectedSubmissionAt,
    }),
    inTransitAt: t.field({ type: 'DateTime', nullable: true, resolve: payoutInTransitAt }),
    arrivalAt: t.field({ type: 'DateTime', nullable: true, resolve: payoutArrivalAt }),
    paidAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.settledAt }),
    returnedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.returnedAt }),
    failureCode: t.string({
      nullable: true,
      description: 'The ACH return code or the RTP rejection reason.',
      resolve: (row) =>
        row.returnCode ?? (row.state === 'failed' && row.rail === 'rtp' ? row.outcomeCode : null),
    }),
    failureReason: t.string({ nullable: true, resolve: (row) => row.returnReason ?? row.failureReason }),
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

const createTransferBody = wireInput('createTransfer', createTransferSchema, createTransferFieldCodes);
const createPayoutBody = wireInput('createPayout', createPayoutSchema, createPayoutFieldCodes);
/** simulateTransferReturn's and simulatePayoutReturn's `code`: the body of `…/return`. */
const returnBodies = {
  transfer: wireInput('simulateTransferReturn', returnTransferSchema, undefined, { path: ['id'] }),
  payout: wireInput('simulatePayoutReturn', returnTransferSchema, undefined, { path: ['id'] }),
};

builder.queryFields((t) => ({
  transfer: t.field({
    type: TransferRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getTransfer(serviceContext(ctx), String(args.id))),
  }),
  payout: t.field({
    type: PayoutRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getPayout(serviceContext(ctx), String(args.id))),
  }),
  payouts: t.connection({
    type: PayoutRef,
    description: 'Payouts, newest first (first: 1-100, default 20).',
    args: { method: t.arg({ type: RailEnum }), state: t.arg.string() },
    resolve: async (_root, args, ctx) => {
      const query = {
        ...listQueryOf(args),
        method: args.method ?? undefined,
        state: args.state ?? undefined,
      };
      return toConnection(await listPayouts(serviceContext(ctx), query), args);
    },
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
const payoutMutation = mutationsOf(getPayout);

type MutationFieldBuilder = Parameters<Parameters<typeof builder.mutationFields>[0]>[0];

/**
 * cancelX, simulateXSubmit, simulateXSettle and simulateXReturn of one kind (X = Transfer or
 * Payout): the REST cancel and simulate steps, replayable by idempotency key.
 */
function stepMutations(
  t: MutationFieldBuilder,
  kind: EntryKind,
  type: typeof TransferRef,
  steps: EntrySteps,
) {
  const name = kind === 'transfer' ? 'Transfer' : 'Payout';
  const plural = `${kind}s`;
  const run = kind === 'transfer' ? transferMutation : payoutMutation;
  const args = { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() };
  const simple = (mutation: string, description: string, work: EntrySteps['submit']) =>
    t.field({
      type,
      errors: { types: [SandbankError] },
      description,
      args,
      resolve: (_root, a, ctx) =>
        run(ctx, mutation, a.idempotencyKey, { id: a.id }, (svc) => work(svc, String(a.id))),
    });
  return {
    [`cancel${name}`]: simple(
      `cancel${name}`,
      `POST /v1/${plural}/{id}/cancel: an ACH ${kind} before submission.`,
      steps.cancel,
    ),
    [`simulate${name}Submit`]: simple(
      `simulate${name}Submit`,
      `POST /v1/simulate/${plural}/{id}/submit.`,
      steps.submit,
    ),
    [`simulate${name}Settle`]: simple(
      `simulate${name}Settle`,
      `POST /v1/simulate/${plural}/{id}/settle.`,
      steps.settle,
    ),
    [`simulate${name}Return`]: t.field({
      type,
      errors: { types: [SandbankError] },
      description: `POST /v1/simulate/${plural}/{id}/return: code defaults to R01 (debits) or R03 (credits).`,
      args: { ...args, code: t.arg.string() },
      resolve: (_root, a, ctx) => {
        const body = returnBodies[kind].body(a);
        return run(ctx, `simulate${name}Return`, a.idempotencyKey, { id: a.id, ...body }, (svc) =>
          steps.return(svc, String(a.id), returnBodies[kind].parse(body)),
        );
      },
    }),
  };
}

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
      const body = createTransferBody.body(args);
      return transferMutation(ctx, 'createTransfer', args.idempotencyKey, body, (svc) =>
        createTransfer(svc, createTransferBody.parse(body)),
      );
    },
  }),
  createPayout: t.field({
    type: PayoutRef,
    errors: { types: [SandbankError] },
    description: "POST /v1/payouts: available USD to the merchant's own bank account (held at once).",
    args: {
      amount: t.arg({ type: 'Decimal', required: true }),
      currency: t.arg.string({ required: true }),
      method: t.arg({ type: RailEnum, description: 'ach (default), same_day_ach or rtp' }),
      destination: t.arg({ type: CounterpartyInput, required: true }),
      reference: t.arg.string(),
      description: t.arg.string(),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_root, args, ctx) => {
      const body = createPayoutBody.body(args);
      return payoutMutation(ctx, 'createPayout', args.idempotencyKey, body, (svc) =>
        createPayout(svc, createPayoutBody.parse(body)),
      );
    },
  }),
  ...stepMutations(t, 'transfer', TransferRef, transferSteps),
  ...stepMutations(t, 'payout', PayoutRef, payoutSteps),
}));
