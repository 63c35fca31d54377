import { builder } from '../../graphql/builder.ts';
import { mutationsOf } from '../../graphql/context.ts';
import { graphqlObject, inputFor } from '../../graphql/derive.ts';
import { type BankAccountType, BankAccountTypeEnum, describedEnum } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum } from '../../graphql/scalars.ts';
import { DESCRIPTION, IDEMPOTENCY_KEY, METADATA, REFERENCE } from '../../graphql/texts.ts';
import { TransactionRef, TransactionStateEnum } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { createPayout, createTransfer } from './transfers.create.ts';
import { transferOperations } from './transfers.operations.ts';
import {
  ACH_RETURN_CODES,
  achReturnReason,
  RAIL_LIMIT_MINOR,
  type Rail,
  RTP_REJECT_REASONS,
} from './transfers.rails.ts';
import { getPayout, getTransfer, payoutsByIds, transfersByIds } from './transfers.read.ts';
import { Payout, Transfer, type TransferRow } from './transfers.resource.ts';
import {
  contestDishonoredReturnSchema,
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
  dishonorReturnSchema,
  listPayoutsQuery,
  listTransfersQuery,
  returnTransferSchema,
} from './transfers.schema.ts';

const dollars = (minor: bigint) => `$${(minor / 100n).toLocaleString('en-US')}`;

export const RailEnum = describedEnum(
  'TransferRail',
  'The rail a bank transfer, payout or inbound transfer travels on.',
  {
    ach: 'Standard ACH: settles the next banking day after the window it is submitted in.',
    same_day_ach: `Same-Day ACH: settles the same banking day (up to ${dollars(RAIL_LIMIT_MINOR.same_day_ach)} an entry).`,
    rtp: `RTP: instant and irrevocable, credits only, completed or rejected within seconds (up to ${dollars(RAIL_LIMIT_MINOR.rtp)}).`,
    fednow: `FedNow: the Fed's instant rail, 24×7×365, credits only, completed or rejected within seconds (up to ${dollars(RAIL_LIMIT_MINOR.fednow)}).`,
  } satisfies Record<Rail, string>,
);

const DirectionEnum = describedEnum('TransferDirection', 'Which way a transfer moves money.', {
  credit: 'Sends money to the counterparty (held from the available balance at once).',
  debit: "Pulls money from the counterparty's account (ACH only).",
});

type SecCode = 'PPD' | 'CCD' | 'WEB';

const SecCodeEnum = describedEnum('AchSecCode', 'The ACH Standard Entry Class code of an entry.', {
  PPD: 'Prearranged Payment and Deposit: a consumer account, authorized in writing.',
  CCD: 'Corporate Credit or Debit: a business account (the default).',
  WEB: 'Internet-initiated: a consumer debit authorized online.',
} satisfies Record<SecCode, string>);

const returnCodeDescription = (code: string) => {
  const reason = achReturnReason(code);
  return reason ? `${reason.title}${reason.unauthorized ? ' (an unauthorized-debit return)' : ''}.` : code;
};

/** Nacha's return codes, each described by its title (reference/ach-return-codes). */
export const AchReturnCodeEnum = describedEnum(
  'AchReturnCode',
  'A Nacha return code: why the receiving bank sent an ACH entry back.',
  Object.fromEntries(ACH_RETURN_CODES.map((code) => [code, returnCodeDescription(code)])),
);

const PayoutFailureCodeEnum = describedEnum(
  'PayoutFailureCode',
  'What ended a payout: a Nacha return code (ACH) or an ISO 20022 rejection reason (RTP, FedNow).',
  {
    ...Object.fromEntries(ACH_RETURN_CODES.map((code) => [code, returnCodeDescription(code)])),
    ...Object.fromEntries(
      Object.entries(RTP_REJECT_REASONS).map(([code, reason]) => [code, `${reason} (RTP and FedNow).`]),
    ),
  },
);

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
  return_code: AchReturnCodeEnum,
  dishonor_code: AchReturnCodeEnum,
  contest_code: AchReturnCodeEnum,
};
// The Node and Transaction interfaces answer id, state, amount, reference and createdAt.
const omit = ['state', 'amount', 'reference', 'created_at'];

export const TransferRef = graphqlObject<TransferRow>(Transfer, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'transfer'),
  omit,
  enums: { rail: RailEnum, direction: DirectionEnum, sec_code: SecCodeEnum, ...returnCodes },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    counterparty: t.field({
      type: CounterpartyRef,
      description: 'The account at the other end.',
      resolve: (row: TransferRow) => row,
    }),
  }),
});

export const PayoutRef = graphqlObject<TransferRow>(Payout, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'payout'),
  omit,
  enums: { method: RailEnum, failure_code: PayoutFailureCodeEnum, ...returnCodes },
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
inputFor(listTransfersQuery.state.unwrap(), TransactionStateEnum);
inputFor(listPayoutsQuery.state.unwrap(), TransactionStateEnum);
mountGraphqlOperations(transferOperations);

const CounterpartyInput = builder.inputType('TransferCounterpartyInput', {
  description: "A US bank account: a transfer's counterparty or a payout's destination.",
  fields: (t) => ({
    name: t.string({ required: true, description: "The account holder's name." }),
    routingNumber: t.string({
      required: true,
      description: 'The ABA routing number (9 digits, checksummed).',
    }),
    accountNumber: t.string({ required: true, description: 'The account number (4-17 digits).' }),
    accountType: t.field({ type: BankAccountTypeEnum, description: 'checking (default) or savings.' }),
  }),
});

const createTransferBody = wireInput('createTransfer', createTransferSchema, createTransferFieldCodes, {
  moves: { counterpartyId: 'counterparty' },
});
const createPayoutBody = wireInput('createPayout', createPayoutSchema, createPayoutFieldCodes, {
  moves: { destinationId: 'destination' },
});
/**
 * An inline account and a saved counterparty's id are one REST field (`counterparty`,
 * `destination`): given both, the mutation is refused as REST would refuse two values, rather than
 * one of them silently winning. 400 parameter_invalid, nothing created.
 */
function notBoth(inline: unknown, savedId: unknown, param: string, idArg: string): void {
  if (inline !== null && inline !== undefined && savedId !== null && savedId !== undefined)
    throw new SandbankError('parameter_invalid', {
      param,
      message: `Give ${param} (an inline account) or ${idArg} (a saved counterparty), not both.`,
    });
}

const transferMutation = mutationsOf(getTransfer);
const payoutMutation = mutationsOf(getPayout);

builder.mutationFields((t) => ({
  createTransfer: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/transfers: a credit sends money (held from available at once), a debit pulls it.',
    args: {
      rail: t.arg({ type: RailEnum, required: true, description: 'The rail to send it on.' }),
      direction: t.arg({
        type: DirectionEnum,
        required: true,
        description: 'credit sends money; debit pulls it (ACH only).',
      }),
      amount: t.arg({ type: 'Decimal', required: true, description: 'How much, in major units.' }),
      currency: t.arg({
        type: CurrencyCodeEnum,
        required: true,
        description: 'USD (bank transfers are in USD; another code is currency_unsupported).',
      }),
      counterparty: t.arg({
        type: CounterpartyInput,
        description: 'The account at the other end (or counterpartyId).',
      }),
      counterpartyId: t.arg.string({ description: 'A saved counterparty (cpty_…) instead of counterparty.' }),
      secCode: t.arg({ type: SecCodeEnum, description: 'ACH only: PPD, CCD (default) or WEB.' }),
      reference: t.arg.string({ description: REFERENCE }),
      description: t.arg.string({ description: DESCRIPTION }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      notBoth(args.counterparty, args.counterpartyId, 'counterparty', 'counterpartyId');
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
      amount: t.arg({ type: 'Decimal', required: true, description: 'How much, in major units.' }),
      currency: t.arg({
        type: CurrencyCodeEnum,
        required: true,
        description: 'USD (payouts are in USD; another code is currency_unsupported).',
      }),
      method: t.arg({ type: RailEnum, description: 'ach (default), same_day_ach, rtp or fednow.' }),
      destination: t.arg({
        type: CounterpartyInput,
        description: "The merchant's own bank account (or destinationId).",
      }),
      destinationId: t.arg.string({ description: 'A saved counterparty (cpty_…) instead of destination.' }),
      reference: t.arg.string({ description: REFERENCE }),
      description: t.arg.string({ description: DESCRIPTION }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      notBoth(args.destination, args.destinationId, 'destination', 'destinationId');
      const body = createPayoutBody.body(args);
      return payoutMutation(ctx, 'createPayout', args.idempotencyKey, body, (svc) =>
        createPayout(svc, createPayoutBody.parse(body)),
      );
    },
  }),
}));
