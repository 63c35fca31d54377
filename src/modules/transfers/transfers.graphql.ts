import { builder } from '../../graphql/builder.ts';
import { graphqlInput, graphqlObject, inputFor } from '../../graphql/derive.ts';
import { type BankAccountType, BankAccountTypeEnum, describedEnum } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { TransactionRef, TransactionStateEnum } from '../../graphql/transaction.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { transferOperations } from './transfers.operations.ts';
import {
  ACH_RETURN_CODES,
  achReturnReason,
  RAIL_LIMIT_MINOR,
  type Rail,
  RTP_REJECT_REASONS,
} from './transfers.rails.ts';
import { payoutsByIds, transfersByIds } from './transfers.read.ts';
import { Payout, Transfer, type TransferRow } from './transfers.resource.ts';
import {
  contestDishonoredReturnSchema,
  counterpartyAccount,
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
inputFor(createTransferSchema.shape.direction, DirectionEnum);
inputFor(
  counterpartyAccount,
  graphqlInput(
    'TransferCounterpartyInput',
    "A US bank account: a transfer's counterparty or a payout's destination.",
    counterpartyAccount,
  ),
);
mountGraphqlOperations(transferOperations);
