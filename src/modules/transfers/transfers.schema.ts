import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';
import { bankAccountSchema } from '../bank-accounts/bank-account.ts';
import { counterpartyIdSchema } from '../counterparties/counterparties.schema.ts';
import { statesOf } from './transfers.machine.ts';
import {
  ACH_RETURN_CODES,
  achReturnReason,
  RAIL_LIMIT_MINOR,
  RAILS,
  type Rail,
  RTP_REJECT_REASONS,
} from './transfers.rails.ts';
import { CONTEST_CODES, DISHONOR_CODES } from './transfers.returns.ts';
import { WIRE_RECALL_REASONS, WIRE_RETURN_REASONS, type WireRecallReason } from './transfers.wire.ts';

/** A US bank account given inline: a transfer's counterparty or a payout's destination. */
export const counterpartyAccount = bankAccountSchema.extend({
  name: z.string().min(1).max(100).describe("The account holder's name."),
});

export const createTransferSchema = z.strictObject({
  rail: z.enum(RAILS).describe('The rail to send it on.'),
  direction: z.enum(['credit', 'debit']).describe('credit sends money to the counterparty; debit pulls it.'),
  amount: wireAmount,
  currency: currencyField(['USD'], 'bank transfers are in USD (ISO 4217 code, any case)').describe(
    'USD (bank transfers are in USD; another code is currency_unsupported).',
  ),
  counterparty: z
    .union([counterpartyIdSchema, counterpartyAccount])
    .describe("The account at the other end: inline, or a saved counterparty's id (cpty_…)."),
  sec_code: z.enum(['PPD', 'CCD', 'WEB']).optional().describe('ACH only (default CCD).'),
  ...labelFields,
});

/** The error codes of a transfer's special fields (its counterparty's problems are parameter_invalid). */
export const createTransferFieldCodes: FieldCodes = { ...moneyFieldCodes, counterparty: 'parameter_invalid' };

/** POST /v1/transfers's body as parsed: createTransfer's input. */
export type CreateTransferInput = z.output<typeof createTransferSchema>;

export const returnTransferSchema = z.strictObject({
  // The document lists the codes; the server checks them after the entry's state (a wrong state is
  // 409 before a bad code's 400 parameter_invalid), so the list is metadata, not validation.
  code: z
    .string()
    .max(8)
    .meta({ enum: [...ACH_RETURN_CODES] })
    .optional()
    .describe(
      'A Nacha return code an RDFI may return this entry with (default R01 for debits, R03 for credits): 400 return_code_not_allowed for a code of another category or direction, 409 return_deadline_passed after its time frame.',
    ),
  untimely: z
    .boolean()
    .optional()
    .describe(
      "Let a return after its code's time frame arrive anyway, marked as an untimely return (the ODFI may then dishonor it R68). Default false: a late return is refused with 409 return_deadline_passed.",
    ),
});

export const dishonorReturnSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .meta({ enum: [...DISHONOR_CODES] })
    .describe(
      "The ODFI's dishonor code: R61 misrouted, R62 erroneous or reversing debit (debits), R67 duplicate, R68 untimely (an untimely return only), R69 field errors, R70 not requested (R06/R31 returns only).",
    ),
});
export type DishonorReturnInput = z.output<typeof dishonorReturnSchema>;

export const contestDishonoredReturnSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .meta({ enum: [...CONTEST_CODES] })
    .describe(
      "The RDFI's contest code: R71 misrouted dishonor (any), R73 timely original return (R68), R74 corrected return or R76 no errors found (R69), R75 not a duplicate (R67), R77 non-acceptance (R62); R72 (untimely dishonor) never applies, dishonors are only taken in time.",
    ),
});
export type ContestDishonoredReturnInput = z.output<typeof contestDishonoredReturnSchema>;

/** The body of `…/return` as parsed (it may be omitted: no code, the default one). */
export type ReturnTransferInput = z.output<typeof returnTransferSchema>;

export const listTransfersQuery = {
  rail: z.enum(RAILS).optional().describe('Only transfers on this rail.'),
  state: z
    .string()
    .max(32)
    .optional()
    .describe(
      `Only transfers in this state (${statesOf('transfer').join(', ')}); any other value matches none.`,
    ),
};

export const createPayoutSchema = z.strictObject({
  amount: wireAmount,
  currency: currencyField(
    ['USD'],
    'payouts are in USD; pay out EUR, GBP or JPY with POST /v1/fx/settlements {currency, amount, destination}',
  ).describe('USD (payouts are in USD; another code is currency_unsupported).'),
  method: z
    .enum(RAILS)
    .describe('The rail: ach (default), same_day_ach, rtp, fednow or wire.')
    .default('ach'),
  destination: z
    .union([counterpartyIdSchema, counterpartyAccount])
    .describe("The merchant's own bank account: inline, or a saved counterparty's id (cpty_…)."),
  ...labelFields,
});

/** The error codes of a payout's special fields (its destination's problems are parameter_invalid). */
export const createPayoutFieldCodes: FieldCodes = { ...moneyFieldCodes, destination: 'parameter_invalid' };

/** POST /v1/payouts's body as parsed (method defaults to ach): createPayout's input. */
export type CreatePayoutInput = z.output<typeof createPayoutSchema>;

export const listPayoutsQuery = {
  method: z.enum(RAILS).optional().describe('Only payouts on this rail.'),
  state: z
    .string()
    .max(32)
    .optional()
    .describe(`Only payouts in this state (${statesOf('payout').join(', ')}); any other value matches none.`),
};

// The described values of transfers and payouts (GraphQL's enums).

const dollars = (minor: bigint) => `$${(minor / 100n).toLocaleString('en-US')}`;

export const TransferRailValues = describedValues(
  'TransferRail',
  'The rail a bank transfer, payout or inbound transfer travels on.',
  {
    ach: 'Standard ACH: settles the next banking day after the window it is submitted in.',
    same_day_ach: `Same-Day ACH: settles the same banking day (up to ${dollars(RAIL_LIMIT_MINOR.same_day_ach)} an entry).`,
    rtp: `RTP: instant and irrevocable, credits only, completed or rejected within seconds (up to ${dollars(RAIL_LIMIT_MINOR.rtp)}).`,
    fednow: `FedNow: the Fed's instant rail, 24×7×365, credits only, completed or rejected within seconds (up to ${dollars(RAIL_LIMIT_MINOR.fednow)}).`,
    wire: `Fedwire: credits only, on the Fedwire Funds Service's operating day (21:00 ET the evening before to the 18:45 ET customer cut-off, banking days), settled at once and final (up to ${dollars(RAIL_LIMIT_MINOR.wire)}).`,
  } satisfies Record<Rail, string>,
);

export const TransferDirectionValues = describedValues(
  'TransferDirection',
  'Which way a transfer moves money.',
  {
    credit: 'Sends money to the counterparty (held from the available balance at once).',
    debit: "Pulls money from the counterparty's account (ACH only).",
  },
);

type SecCode = 'PPD' | 'CCD' | 'WEB';

export const AchSecCodeValues = describedValues(
  'AchSecCode',
  'The ACH Standard Entry Class code of an entry.',
  {
    PPD: 'Prearranged Payment and Deposit: a consumer account, authorized in writing.',
    CCD: 'Corporate Credit or Debit: a business account (the default).',
    WEB: 'Internet-initiated: a consumer debit authorized online.',
  } satisfies Record<SecCode, string>,
);

const returnCodeDescription = (code: string) => {
  const reason = achReturnReason(code);
  return reason ? `${reason.title}${reason.unauthorized ? ' (an unauthorized-debit return)' : ''}.` : code;
};

/** Nacha's return codes, each described by its title (reference/ach-return-codes). */
export const AchReturnCodeValues = describedValues(
  'AchReturnCode',
  'A Nacha return code: why the receiving bank sent an ACH entry back.',
  Object.fromEntries(ACH_RETURN_CODES.map((code) => [code, returnCodeDescription(code)])),
);

const wireReturnCodes = () =>
  Object.fromEntries(
    Object.entries(WIRE_RETURN_REASONS).map(([code, reason]) => [code, `${reason} (Fedwire).`]),
  );

/** The codes a transfer comes back with: Nacha's (ACH) and ISO 20022's (Fedwire). */
export const TransferReturnCodeValues = describedValues(
  'TransferReturnCode',
  'Why an entry came back: a Nacha return code (ACH) or an ISO 20022 return reason (Fedwire).',
  {
    ...Object.fromEntries(ACH_RETURN_CODES.map((code) => [code, returnCodeDescription(code)])),
    ...wireReturnCodes(),
  },
);

export const PayoutFailureCodeValues = describedValues(
  'PayoutFailureCode',
  'What ended a payout: a Nacha return code (ACH), an ISO 20022 rejection reason (RTP, FedNow) or return reason (Fedwire).',
  {
    ...Object.fromEntries(ACH_RETURN_CODES.map((code) => [code, returnCodeDescription(code)])),
    ...wireReturnCodes(),
    ...Object.fromEntries(
      Object.entries(RTP_REJECT_REASONS).map(([code, reason]) => [code, `${reason} (RTP and FedNow).`]),
    ),
  },
);

export const WireRecallReasonValues = describedValues(
  'WireRecallReason',
  'Why a wire is recalled (an ISO 20022 cancellation reason).',
  WIRE_RECALL_REASONS as Record<WireRecallReason, string>,
);

export const wireRecallSchema = z.strictObject({
  reason: z
    .enum(Object.keys(WIRE_RECALL_REASONS) as [WireRecallReason, ...WireRecallReason[]])
    .describe(
      'Why the wire is recalled, as an ISO 20022 cancellation reason: DUPL (duplicate), FRAD (fraud), TECH (technical problem), CUST (the customer asked), AM09 (wrong amount), AC03 (wrong account), UPAY (undue payment).',
    ),
});

/** POST /v1/transfers/{id}/recall's body as parsed. */
export type WireRecallInput = z.output<typeof wireRecallSchema>;
