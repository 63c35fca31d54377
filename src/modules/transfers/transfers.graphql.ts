import { builder } from '../../graphql/builder.ts';
import { descriptionOf, graphqlInput, graphqlObject, inputFor } from '../../graphql/derive.ts';
import { type BankAccountType, BankAccountTypeEnum, enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { transferOperations } from './transfers.operations.ts';
import { payoutsByIds, transfersByIds } from './transfers.read.ts';
import {
  Payout,
  Transfer,
  type TransferRow,
  type WireRecallRecord,
  WireRecallWire,
} from './transfers.resource.ts';
import {
  AchReturnCodeValues,
  contestDishonoredReturnSchema,
  counterpartyAccount,
  createTransferSchema,
  dishonorReturnSchema,
  listPayoutsQuery,
  listTransfersQuery,
  PayoutFailureCodeValues,
  returnTransferSchema,
  TransferDirectionValues,
  TransferRailValues,
  TransferReturnCodeValues,
} from './transfers.schema.ts';
import { type WsudRecord, WsudWire } from './transfers.wsud.ts';

const AchReturnCodeEnum = enumOf(AchReturnCodeValues);
const RailEnum = enumOf(TransferRailValues);
const DirectionEnum = enumOf(TransferDirectionValues);

const CounterpartyRef = builder.objectRef<TransferRow>('TransferCounterparty').implement({
  description:
    "The account at the other end (a payout's destination). Only the last 4 digits of its number are kept.",
  fields: (t) => ({
    name: t.exposeString('counterpartyName', { description: "The account holder's name." }),
    routingNumber: t.exposeString('routingNumber', { description: 'The ABA routing number (9 digits).' }),
    accountNumberLast4: t.exposeString('accountLast4', {
      description: 'The last 4 digits of the account number.',
    }),
    accountType: t.field({
      type: BankAccountTypeEnum,
      description: 'checking or savings.',
      resolve: (row) => row.accountType as BankAccountType,
    }),
  }),
});

const returnCodes = {
  return_code: enumOf(TransferReturnCodeValues),
  dishonor_code: AchReturnCodeEnum,
  contest_code: AchReturnCodeEnum,
};
const wsudField = WsudWire.shape;
const describeWsud = (key: keyof typeof wsudField) => descriptionOf(wsudField[key]) ?? '';
const dateTime = (value: string | null) => (value ? new Date(value) : null);

const WsudRef = builder.objectRef<WsudRecord>('WrittenStatementOfUnauthorizedDebit').implement({
  description: WsudWire.description ?? '',
  fields: (t) => ({
    receiverName: t.exposeString('receiver_name', { description: describeWsud('receiver_name') }),
    accountNumberLast4: t.exposeString('account_number_last4', {
      description: describeWsud('account_number_last4'),
    }),
    debitedBy: t.exposeString('debited_by', { description: describeWsud('debited_by') }),
    entryPostedOn: t.exposeString('entry_posted_on', { description: describeWsud('entry_posted_on') }),
    reasonCode: t.exposeString('reason_code', { description: describeWsud('reason_code') }),
    reason: t.exposeString('reason', { description: describeWsud('reason') }),
    signedOn: t.exposeString('signed_on', { description: describeWsud('signed_on') }),
    statements: t.exposeStringList('statements', { description: describeWsud('statements') }),
    copyRequestBy: t.field({
      type: 'DateTime',
      description: describeWsud('copy_request_by'),
      resolve: (r) => new Date(r.copy_request_by),
    }),
    copyRequestedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: describeWsud('copy_requested_at'),
      resolve: (r) => dateTime(r.copy_requested_at),
    }),
    copyProvideBy: t.field({
      type: 'DateTime',
      nullable: true,
      description: describeWsud('copy_provide_by'),
      resolve: (r) => dateTime(r.copy_provide_by),
    }),
    copyProvidedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: describeWsud('copy_provided_at'),
      resolve: (r) => dateTime(r.copy_provided_at),
    }),
  }),
});

const recallField = WireRecallWire.shape;
const describeRecall = (key: keyof typeof recallField) => descriptionOf(recallField[key]) ?? '';

const WireRecallRef = builder.objectRef<WireRecallRecord>('WireRecall').implement({
  description: WireRecallWire.description ?? '',
  fields: (t) => ({
    reason: t.exposeString('reason', { description: describeRecall('reason') }),
    reasonText: t.exposeString('reason_text', { description: describeRecall('reason_text') }),
    requestedAt: t.field({
      type: 'DateTime',
      description: describeRecall('requested_at'),
      resolve: (r) => new Date(r.requested_at),
    }),
    state: t.exposeString('state', { description: describeRecall('state') }),
    answerDueAt: t.field({
      type: 'DateTime',
      description: describeRecall('answer_due_at'),
      resolve: (r) => new Date(r.answer_due_at),
    }),
    answeredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: describeRecall('answered_at'),
      resolve: (r) => dateTime(r.answered_at),
    }),
    refusalCode: t.exposeString('refusal_code', {
      nullable: true,
      description: describeRecall('refusal_code'),
    }),
    refusalReason: t.exposeString('refusal_reason', {
      nullable: true,
      description: describeRecall('refusal_reason'),
    }),
  }),
});

// The Node and Transaction interfaces answer id, state, amount, reference and createdAt.
const omit = ['state', 'amount', 'reference', 'created_at'];

export const TransferRef = graphqlObject<TransferRow>(Transfer, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'transfer'),
  omit,
  enums: { direction: DirectionEnum, ...returnCodes },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    counterparty: t.field({
      type: CounterpartyRef,
      description: 'The account at the other end.',
      resolve: (row: TransferRow) => row,
    }),
    wsud: t.field({
      type: WsudRef,
      nullable: true,
      description: WsudWire.description ?? '',
      resolve: (row: TransferRow) => row.wsud ?? null,
    }),
    recall: t.field({
      type: WireRecallRef,
      nullable: true,
      description: WireRecallWire.description ?? '',
      resolve: (row: TransferRow) => row.recall ?? null,
    }),
  }),
});

export const PayoutRef = graphqlObject<TransferRow>(Payout, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'payout'),
  omit,
  enums: { failure_code: enumOf(PayoutFailureCodeValues), ...returnCodes },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    destination: t.field({
      type: CounterpartyRef,
      description: "The merchant's own bank account it pays.",
      resolve: (row: TransferRow) => row,
    }),
  }),
});

nodeKind('transfer', TransferRef, transfersByIds);
nodeKind('payout', PayoutRef, payoutsByIds);

// The codes and list filters GraphQL answers as enums (REST checks them in the service, as strings).
inputFor(returnTransferSchema.shape.code.unwrap(), AchReturnCodeEnum);
inputFor(dishonorReturnSchema.shape.code, AchReturnCodeEnum);
inputFor(contestDishonoredReturnSchema.shape.code, AchReturnCodeEnum);
inputFor(listTransfersQuery.rail.unwrap(), RailEnum);
inputFor(listPayoutsQuery.method.unwrap(), RailEnum);
inputFor(createTransferSchema.shape.direction, DirectionEnum);
/** A US bank account as an input (a transfer's counterparty, a payout's destination, a requester). */
export const TransferCounterpartyInput = graphqlInput(
  'TransferCounterpartyInput',
  "A US bank account: a transfer's counterparty or a payout's destination.",
  counterpartyAccount,
);
inputFor(counterpartyAccount, TransferCounterpartyInput);
mountGraphqlOperations(transferOperations);
