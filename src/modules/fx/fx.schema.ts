import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';
import { FAILURE_REASONS } from './fx.destinations.ts';
import { type FxQuoteState, fxSettlementMachine } from './fx.machine.ts';

export const FX_TARGETS = ['EUR', 'GBP', 'JPY'] as const;
export const LOCK_DURATIONS = { five_minutes: 300, hour: 3_600, day: 86_400 } as const;
export type LockDuration = keyof typeof LOCK_DURATIONS;

/** A target currency (GraphQL: FxTargetCurrency, fx.graphql.ts). */
export const targetCurrency = currencyField(FX_TARGETS, 'FX targets are EUR, GBP and JPY').describe(
  'The currency to buy: EUR, GBP or JPY.',
);

/** The merchant's labels of a conversion or settlement, described (GraphQL takes the descriptions). */
const labels = {
  reference: labelFields.reference.describe(
    "The merchant's own reference: 1-100 characters of A-Z a-z 0-9 . _ : -.",
  ),
  description: labelFields.description.describe('A free-text description, up to 1000 characters.'),
  metadata: labelFields.metadata,
};

/**
 * A quote asks for exactly one of source_amount and target_amount. The document says so as a
 * `oneOf`; the service checks it (parameter_missing for neither, parameter_invalid for both).
 */
export const createQuoteSchema = z
  .strictObject({
    source_currency: currencyField(['USD'], 'quotes sell USD').optional().describe('Always USD.'),
    target_currency: targetCurrency,
    source_amount: wireAmount.optional().describe('USD to sell (then target_amount is computed), or…'),
    target_amount: wireAmount
      .optional()
      .describe('…the target amount to buy (then source_amount is computed).'),
    lock_duration: z
      .enum(Object.keys(LOCK_DURATIONS) as [LockDuration, ...LockDuration[]])
      .optional()
      .describe('How long the rate stays locked: five_minutes (default), hour or day.'),
  })
  .meta({
    oneOf: [
      { required: ['source_amount'], description: 'Sell this much USD.' },
      { required: ['target_amount'], description: 'Buy this much of the target currency.' },
    ],
  } as z.GlobalMeta);

export const quoteFieldCodes: FieldCodes = {
  source_currency: 'currency_unsupported',
  target_currency: 'currency_unsupported',
  source_amount: 'amount_invalid',
  target_amount: 'amount_invalid',
};

/** POST /v1/fx/quotes' body as parsed: createQuote's input. */
export type CreateQuoteInput = z.output<typeof createQuoteSchema>;

export const createConversionSchema = z.strictObject({
  quote_id: z.string().min(1).max(255).describe('The quote to convert at (once, before it expires).'),
  ...labels,
});

export const conversionFieldCodes: FieldCodes = { reference: moneyFieldCodes.reference };

/** POST /v1/fx/conversions' body as parsed: createConversion's input. */
export type CreateConversionInput = z.output<typeof createConversionSchema>;

/**
 * The two accounts a settlement pays, as the document shows them. The service validates them
 * (fx.destinations.ts: the IBAN's country, length and check digits, the Zengin codes), with
 * destination_invalid naming the field at fault; these schemas only describe them. They are built
 * when the routes register them as components (a zod schema takes the generator's methods from
 * zod's prototype when it is created, so after @hono/zod-openapi has extended it).
 */
export function fxDestinationInputs() {
  const name = (description: string) => z.string().min(1).max(140).describe(description);
  const digits = (count: number, description: string) =>
    z
      .string()
      .regex(new RegExp(`^[0-9]{${count}}$`))
      .describe(description);
  return {
    FxIbanAccountInput: z
      .strictObject({
        name: name("The account holder's name."),
        iban: z
          .string()
          .describe(
            'The IBAN (ISO 13616; spaces and case ignored): of a SEPA country for EUR, a UK (GB) one for GBP.',
          ),
      })
      .meta({ description: 'An account by IBAN: a EUR or GBP settlement pays it.' }),
    FxJpBankAccountInput: z
      .strictObject({
        name: name("The account holder's name, in katakana or Latin letters."),
        bank_code: digits(4, 'The Zengin bank code: 4 digits.'),
        branch_code: digits(3, 'The branch code: 3 digits.'),
        account_number: digits(7, 'The account number: 7 digits.'),
      })
      .meta({ description: 'A Japanese (Zengin) bank account: a JPY settlement pays it.' }),
  };
}

/**
 * Validated per currency in the service (IBAN or Japanese account), so it is loose here: a
 * wrong one is destination_invalid with the field at fault. The document shows the two shapes.
 */
const destinationSchema = z.record(z.string(), z.unknown()).meta({
  type: 'object',
  oneOf: Object.keys(fxDestinationInputs()).map((id) => ({ $ref: `#/components/schemas/${id}` })),
  description:
    'The account abroad: EUR and GBP pay an IBAN ({name, iban}); JPY pays a Japanese account ({name, bank_code, branch_code, account_number}).',
} as z.GlobalMeta);

/**
 * The ways to fund a settlement, each with its own fields: exactly one is used. The service checks
 * it (fx.settlements.ts); the document shows it as a `oneOf` of the fields each way requires.
 */
export const FUNDING_WAYS = [
  ['quote_id'],
  ['target_currency', 'source_amount', 'target_amount'],
  ['currency', 'amount'],
] as const;

/** The required fields of each way (converted now takes one of its two amounts) and what it excludes. */
function fundingOneOf() {
  const fields: string[] = FUNDING_WAYS.flat();
  const option = (required: string[], description: string) => ({
    required,
    not: {
      anyOf: fields.filter((field) => !required.includes(field)).map((field) => ({ required: [field] })),
    },
    description,
  });
  return [
    option(['quote_id'], 'Convert at a locked quote.'),
    option(['target_currency', 'source_amount'], 'Convert this much USD now, at the current rate.'),
    option(['target_currency', 'target_amount'], 'Convert now, at the current rate, to pay this much.'),
    option(['currency', 'amount'], "Pay out of this currency's balance."),
  ];
}

export const createSettlementSchema = z
  .strictObject({
    quote_id: z.string().min(1).max(255).optional().describe('Convert at this locked quote, or…'),
    target_currency: targetCurrency.optional().describe('…convert now at the current rate (with an amount)…'),
    source_amount: wireAmount.optional().describe('With target_currency: the USD to sell.'),
    target_amount: wireAmount.optional().describe('With target_currency: the amount to pay abroad.'),
    currency: targetCurrency.optional().describe('…or pay out of the EUR/GBP/JPY balance (with amount).'),
    amount: wireAmount.optional().describe('With currency: the amount to pay abroad.'),
    destination: destinationSchema,
    ...labels,
  })
  .meta({ oneOf: fundingOneOf() } as z.GlobalMeta);

export const settlementFieldCodes: FieldCodes = {
  ...quoteFieldCodes,
  ...conversionFieldCodes,
  currency: 'currency_unsupported',
  amount: 'amount_invalid',
  destination: 'destination_invalid',
};

/** POST /v1/fx/settlements' body as parsed: createSettlement's input. */
export type CreateSettlementInput = z.output<typeof createSettlementSchema>;

/** A list's state filter: each list its own, so that GraphQL types it by that list's states. */
const stateFilter = (description: string) =>
  listQuerySchema.extend({ state: z.string().max(32).optional().describe(description) });

export const quotesQuery = stateFilter('Only quotes in this state.');
export const conversionsQuery = stateFilter('Only conversions in this state.');
export const settlementsQuery = stateFilter(
  `Only settlements in this state (a settlement's states: ${fxSettlementMachine.states.join(', ')}).`,
);

export const ratesQuery = z.strictObject({
  at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      "The rates of this instant's hour (any instant from 0000-01-01T00:00:00Z up to, not including, 9999-12-31T23:00:00Z); the clock's time when left out.",
    ),
});

export const failSettlementSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .optional()
    .meta({
      enum: Object.keys(FAILURE_REASONS),
      description: 'The ISO 20022 reason: AC01, AC04 (default), AC06, AG01, BE01 or MS03.',
    } as z.GlobalMeta),
});

/** POST /v1/simulate/fx_settlements/{id}/fail's body as parsed: simulateSettlementFail's input. */
export type FailSettlementInput = z.output<typeof failSettlementSchema>;

export const FxTargetCurrencyValues = describedValues(
  'FxTargetCurrency',
  'The currencies USD converts into.',
  {
    EUR: 'Euro.',
    GBP: 'Pound sterling.',
    JPY: 'Japanese yen.',
  } satisfies Record<(typeof FX_TARGETS)[number], string>,
);

const lockDescription = (seconds: number) =>
  seconds < 3_600
    ? `${seconds / 60} minutes`
    : seconds < 86_400
      ? `${seconds / 3_600} hour`
      : `${seconds / 86_400} day`;

export const FxLockDurationValues = describedValues(
  'FxLockDuration',
  'How long a quote keeps its rate.',
  Object.fromEntries(
    Object.entries(LOCK_DURATIONS).map(([lock, seconds]) => [
      lock,
      `${lockDescription(seconds)} of clock time${lock === 'five_minutes' ? ' (the default)' : ''}.`,
    ]),
  ) as Record<LockDuration, string>,
);

export const FxQuoteStateValues = describedValues('FxQuoteState', 'Where an FX quote stands.', {
  open: 'Usable, until expiresAt.',
  used: 'A conversion or settlement used it (usedBy names which).',
  expired: 'Its lock ran out unused.',
} satisfies Record<FxQuoteState, string>);

export const FxFixedSideValues = describedValues('FxFixedSide', 'Which amount of a quote was asked for.', {
  source: 'The USD to sell was given; the target amount was computed.',
  target: 'The target amount to buy was given; the USD to sell was computed.',
});

export const FxSettlementFundingValues = describedValues(
  'FxSettlementFunding',
  'Where the money of a settlement abroad comes from.',
  {
    conversion: 'USD converted at a quote (or at the current rate).',
    balance: 'The EUR, GBP or JPY balance.',
  },
);

export const FxDestinationTypeValues = describedValues(
  'FxDestinationType',
  'The kind of account a settlement pays.',
  {
    iban: 'An IBAN (EUR, GBP).',
    jp_bank_account: 'A Japanese bank account: bank, branch and account number (JPY).',
  } satisfies Record<'iban' | 'jp_bank_account', string>,
);

export const FxSettlementFailureCodeValues = describedValues(
  'FxSettlementFailureCode',
  "The ISO 20022 reason a beneficiary's bank refuses a settlement with.",
  FAILURE_REASONS,
);
