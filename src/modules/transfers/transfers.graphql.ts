import { builder } from '../../graphql/builder.ts';
import {
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { type BankAccountType, BankAccountTypeEnum, describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum } from '../../graphql/scalars.ts';
import {
  DESCRIPTION,
  IDEMPOTENCY_KEY,
  METADATA,
  REFERENCE,
  STORED_DESCRIPTION,
  STORED_METADATA,
  UPDATED_AT,
} from '../../graphql/texts.ts';
import { TransactionRef, TransactionStateEnum } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { createPayout, createTransfer } from './transfers.create.ts';
import { type EntryKind, statesOf } from './transfers.machine.ts';
import {
  ACH_RETURN_CODES,
  achReturnReason,
  isInstantRail,
  RAIL_LIMIT_MINOR,
  type Rail,
  RTP_REJECT_REASONS,
} from './transfers.rails.ts';
import {
  getPayout,
  getTransfer,
  listPayouts,
  listTransfers,
  payoutsByIds,
  transfersByIds,
} from './transfers.read.ts';
import { payoutArrivalAt, payoutInTransitAt, type TransferRow } from './transfers.resource.ts';
import {
  contestDishonoredReturnSchema,
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
  dishonorReturnSchema,
  returnTransferSchema,
} from './transfers.schema.ts';
import { type EntrySteps, payoutSteps, transferSteps } from './transfers.steps.ts';

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

type EntryFieldBuilder = Parameters<
  NonNullable<Parameters<ReturnType<typeof builder.objectRef<TransferRow>>['implement']>[0]['fields']>
>[0];

/** A return's dishonor and contest, the same on transfers and payouts (REST: return_untimely, dishonor_*, contest_*). */
function returnDisputeFields(t: EntryFieldBuilder) {
  return {
    returnUntimely: t.exposeBoolean('returnUntimely', {
      description:
        "Whether the return arrived after its code's time frame (let through with untimely: true); the ODFI may dishonor it R68.",
    }),
    dishonoredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the ODFI dishonored the return (state return_dishonored); null otherwise.',
      resolve: (row) => row.dishonoredAt,
    }),
    dishonorCode: t.field({
      type: AchReturnCodeEnum,
      nullable: true,
      description: 'The Nacha code the ODFI dishonored the return with (R61-R70); null unless dishonored.',
      resolve: (row) => row.dishonorCode,
    }),
    dishonorReason: t.exposeString('dishonorReason', {
      nullable: true,
      description: 'The title of the dishonor code (Untimely Return); null unless dishonored.',
    }),
    contestedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the RDFI contested the dishonor (state return_contested); null otherwise.',
      resolve: (row) => row.contestedAt,
    }),
    contestCode: t.field({
      type: AchReturnCodeEnum,
      nullable: true,
      description: 'The Nacha code the RDFI contested the dishonor with (R71-R77); null unless contested.',
      resolve: (row) => row.contestCode,
    }),
    contestReason: t.exposeString('contestReason', {
      nullable: true,
      description: 'The title of the contest code (Timely Original Return); null unless contested.',
    }),
  };
}

export const TransferRef = builder.objectRef<TransferRow>('Transfer').implement({
  description: `A bank transfer. States: ${statesOf('transfer').join(', ')}.`,
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'transfer'),
  fields: (t) => ({
    rail: t.field({
      type: RailEnum,
      description: 'The rail it travels on.',
      resolve: (row) => row.rail as Rail,
    }),
    direction: t.field({
      type: DirectionEnum,
      description: 'credit sends money to the counterparty; debit pulls it.',
      resolve: (row) => row.direction as 'credit' | 'debit',
    }),
    counterparty: t.field({
      type: CounterpartyRef,
      description: 'The account at the other end.',
      resolve: (row) => row,
    }),
    counterpartyId: t.exposeString('counterpartyId', {
      nullable: true,
      description: 'The saved counterparty (cpty_…) it was sent to; null for an inline account.',
    }),
    secCode: t.field({
      type: SecCodeEnum,
      nullable: true,
      description: 'The ACH Standard Entry Class code; null on RTP and FedNow.',
      resolve: (row) => row.secCode as SecCode | null,
    }),
    expectedSubmissionAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'ACH: the cut-off of the FedACH window the entry goes in (it is submitted then); null on RTP.',
      resolve: (row) => row.expectedSubmissionAt,
    }),
    submittedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the entry was submitted to the rail (RTP: when it was sent); null before.',
      resolve: (row) => row.submittedAt,
    }),
    expectedSettlementAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the entry is expected to settle (RTP: to complete); null when none is to be expected.',
      resolve: (row) => row.expectedSettlementAt,
    }),
    settledAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the entry settled (RTP: completed); null before.',
      resolve: (row) => row.settledAt,
    }),
    returnedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the entry came back (state returned); null otherwise.',
      resolve: (row) => row.returnedAt,
    }),
    returnCode: t.field({
      type: AchReturnCodeEnum,
      nullable: true,
      description: 'The Nacha return code it came back with (state returned); null otherwise.',
      resolve: (row) => row.returnCode,
    }),
    returnReason: t.exposeString('returnReason', {
      nullable: true,
      description: 'The title of the return code (Insufficient Funds); null unless returned.',
    }),
    ...returnDisputeFields(t),
    failureReason: t.exposeString('failureReason', {
      nullable: true,
      description: 'Why an RTP transfer was rejected (state rejected): the ISO 20022 reason and its meaning.',
    }),
    collection: t.exposeString('collectionId', {
      nullable: true,
      description: 'The id of the collection this debit pays (its checkout was paid by bank account).',
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: STORED_DESCRIPTION,
    }),
    metadata: t.field({
      type: 'JSONObject',
      description: STORED_METADATA,
      resolve: (row) => row.metadata,
    }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
  }),
});

export const PayoutRef = builder.objectRef<TransferRow>('Payout').implement({
  description: `A payout of available USD to the merchant's own bank account. States: ${statesOf('payout').join(', ')}.`,
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'payout'),
  fields: (t) => ({
    method: t.field({
      type: RailEnum,
      description: 'The rail it travels on.',
      resolve: (row) => row.rail as Rail,
    }),
    destination: t.field({
      type: CounterpartyRef,
      description: "The merchant's own bank account it pays.",
      resolve: (row) => row,
    }),
    counterpartyId: t.exposeString('counterpartyId', {
      nullable: true,
      description: 'The saved counterparty (cpty_…) it was paid to; null for an inline account.',
    }),
    expectedSubmissionAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'ACH: the cut-off of the FedACH window the payout goes in (it is in transit then); null on RTP.',
      resolve: (row) => row.expectedSubmissionAt,
    }),
    inTransitAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the payout went in transit (ACH submission); null before, and always on RTP.',
      resolve: payoutInTransitAt,
    }),
    arrivalAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the payout arrives (is expected to be paid); null for one that never will or that waits for a simulate step.',
      resolve: payoutArrivalAt,
    }),
    paidAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the payout was paid (settled); null before.',
      resolve: (row) => row.settledAt,
    }),
    returnedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the bank sent the payout back (ACH: failed or returned); null otherwise.',
      resolve: (row) => row.returnedAt,
    }),
    failureCode: t.field({
      type: PayoutFailureCodeEnum,
      nullable: true,
      description: 'What ended it: the ACH return code or the RTP rejection reason; null otherwise.',
      resolve: (row) =>
        row.returnCode ?? (row.state === 'failed' && isInstantRail(row.rail) ? row.outcomeCode : null),
    }),
    failureReason: t.string({
      nullable: true,
      description: 'The meaning of failureCode (Account Closed; AC03: Invalid creditor account number).',
      resolve: (row) => row.returnReason ?? row.failureReason,
    }),
    ...returnDisputeFields(t),
    description: t.exposeString('description', {
      nullable: true,
      description: STORED_DESCRIPTION,
    }),
    metadata: t.field({
      type: 'JSONObject',
      description: STORED_METADATA,
      resolve: (row) => row.metadata,
    }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (row) => row.updatedAt }),
  }),
});

nodeKind('transfer', TransferRef, transfersByIds);
nodeKind('payout', PayoutRef, payoutsByIds);

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
/** simulateTransferReturn's and simulatePayoutReturn's `code`: the body of `…/return`. */
const returnBodies = {
  transfer: wireInput('simulateTransferReturn', returnTransferSchema, undefined, { path: ['id'] }),
  payout: wireInput('simulatePayoutReturn', returnTransferSchema, undefined, { path: ['id'] }),
};
const dishonorBodies = {
  transfer: wireInput('simulateTransferDishonorReturn', dishonorReturnSchema, undefined, { path: ['id'] }),
  payout: wireInput('simulatePayoutDishonorReturn', dishonorReturnSchema, undefined, { path: ['id'] }),
};
const contestBodies = {
  transfer: wireInput('simulateTransferContestDishonoredReturn', contestDishonoredReturnSchema, undefined, {
    path: ['id'],
  }),
  payout: wireInput('simulatePayoutContestDishonoredReturn', contestDishonoredReturnSchema, undefined, {
    path: ['id'],
  }),
};

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

builder.queryFields((t) => ({
  transfer: t.field({
    type: TransferRef,
    nullable: true,
    description: 'A bank transfer by its id (GET /v1/transfers/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The transfer's id (tr_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getTransfer(serviceContext(ctx), String(args.id))),
  }),
  payout: t.field({
    type: PayoutRef,
    nullable: true,
    description: 'A payout by its id (GET /v1/payouts/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The payout's id (po_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getPayout(serviceContext(ctx), String(args.id))),
  }),
  payouts: t.connection({
    type: PayoutRef,
    description: 'Payouts, newest first (first: 1-100, default 20).',
    args: {
      method: t.arg({ type: RailEnum, description: 'Only payouts on this rail.' }),
      state: t.arg({
        type: TransactionStateEnum,
        description: `Only payouts in this state (a payout's states: ${statesOf('payout').join(', ')}).`,
      }),
    },
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
    args: {
      rail: t.arg({ type: RailEnum, description: 'Only transfers on this rail.' }),
      state: t.arg({
        type: TransactionStateEnum,
        description: `Only transfers in this state (a transfer's states: ${statesOf('transfer').join(', ')}).`,
      }),
    },
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
  const args = {
    id: t.arg.id({ required: true, description: `The ${kind}'s id.` }),
    idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
  };
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
      args: {
        ...args,
        code: t.arg({
          type: AchReturnCodeEnum,
          description:
            'The Nacha return code (default R01 for debits, R03 for credits): one an RDFI may return this entry with (return_code_not_allowed otherwise), within its time frame (return_deadline_passed otherwise).',
        }),
        untimely: t.arg.boolean({
          description:
            "Let a return after its code's time frame arrive anyway, marked returnUntimely (the ODFI may then dishonor it R68).",
        }),
      },
      resolve: (_root, a, ctx) => {
        const body = returnBodies[kind].body(a);
        return run(ctx, `simulate${name}Return`, a.idempotencyKey, { id: a.id, ...body }, (svc) =>
          steps.return(svc, String(a.id), returnBodies[kind].parse(body)),
        );
      },
    }),
    [`simulate${name}DishonorReturn`]: t.field({
      type,
      errors: { types: [SandbankError] },
      description: `POST /v1/simulate/${plural}/{id}/dishonor_return: the ODFI dishonors the return (R61-R70, within 5 banking days); the ${kind} is return_dishonored and its effect applies again.`,
      args: {
        ...args,
        code: t.arg({
          type: AchReturnCodeEnum,
          required: true,
          description:
            'R61 misrouted, R62 erroneous or reversing debit (debits), R67 duplicate, R68 untimely (an untimely return only), R69 field errors, R70 not requested (R06/R31 returns only).',
        }),
      },
      resolve: (_root, a, ctx) => {
        const body = dishonorBodies[kind].body(a);
        return run(ctx, `simulate${name}DishonorReturn`, a.idempotencyKey, { id: a.id, ...body }, (svc) =>
          steps.dishonorReturn(svc, String(a.id), dishonorBodies[kind].parse(body)),
        );
      },
    }),
    [`simulate${name}ContestDishonoredReturn`]: t.field({
      type,
      errors: { types: [SandbankError] },
      description: `POST /v1/simulate/${plural}/{id}/contest_dishonored_return: the RDFI contests the dishonor (R71-R77, within 2 banking days); the ${kind} is return_contested and returned again.`,
      args: {
        ...args,
        code: t.arg({
          type: AchReturnCodeEnum,
          required: true,
          description:
            'R71 misrouted dishonor (any), R73 timely original return (R68), R74 corrected return or R76 no errors found (R69), R75 not a duplicate (R67), R77 non-acceptance (R62); R72 never applies.',
        }),
      },
      resolve: (_root, a, ctx) => {
        const body = contestBodies[kind].body(a);
        return run(
          ctx,
          `simulate${name}ContestDishonoredReturn`,
          a.idempotencyKey,
          { id: a.id, ...body },
          (svc) => steps.contestDishonoredReturn(svc, String(a.id), contestBodies[kind].parse(body)),
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
  ...stepMutations(t, 'transfer', TransferRef, transferSteps),
  ...stepMutations(t, 'payout', PayoutRef, payoutSteps),
}));
