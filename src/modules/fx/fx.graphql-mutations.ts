import { builder } from '../../graphql/builder.ts';
import { mutationsOf } from '../../graphql/context.ts';
import { DESCRIPTION, IDEMPOTENCY_KEY, METADATA, REFERENCE } from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { createConversion, getConversion } from './fx.conversions.ts';
import {
  FailureCodeEnum,
  FxConversionRef,
  FxQuoteRef,
  FxSettlementRef,
  LockEnum,
  TargetEnum,
} from './fx.graphql.ts';
import { createQuote, getQuote } from './fx.quotes.ts';
import {
  conversionFieldCodes,
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  failSettlementSchema,
  quoteFieldCodes,
  settlementFieldCodes,
} from './fx.schema.ts';
import { simulateSettlementFail, simulateSettlementPay } from './fx.settle.ts';
import { createSettlement, getSettlement } from './fx.settlements.ts';

/** The FX mutations: quotes, conversions, settlements and their simulated outcomes. */

const DestinationInput = builder.inputType('FxDestinationInput', {
  description: 'EUR/GBP: name and iban. JPY: name, bankCode (4 digits), branchCode (3), accountNumber (7).',
  fields: (t) => ({
    name: t.string({ description: "The beneficiary's name." }),
    iban: t.string({ description: 'EUR and GBP: the IBAN.' }),
    bankCode: t.string({ description: 'JPY: the bank code, 4 digits.' }),
    branchCode: t.string({ description: 'JPY: the branch code, 3 digits.' }),
    accountNumber: t.string({ description: 'JPY: the account number, 7 digits.' }),
  }),
});

/** Each kind's mutations (replayed by idempotency key) and its arguments as the REST body. */
const quoteMutation = mutationsOf(getQuote);
const quoteBody = wireInput('createFxQuote', createQuoteSchema, quoteFieldCodes);
const conversionMutation = mutationsOf(getConversion);
const conversionBody = wireInput('createFxConversion', createConversionSchema, conversionFieldCodes);
const settlementMutation = mutationsOf(getSettlement);
const settlementBody = wireInput('createFxSettlement', createSettlementSchema, settlementFieldCodes);
const failBody = wireInput('simulateFxSettlementFail', failSettlementSchema, undefined, { path: ['id'] });

builder.mutationFields((t) => ({
  createFxQuote: t.field({
    type: FxQuoteRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/fx/quotes: exactly one of sourceAmount (USD) and targetAmount.',
    args: {
      targetCurrency: t.arg({ type: TargetEnum, required: true, description: 'The currency to buy.' }),
      sourceAmount: t.arg({
        type: 'Decimal',
        description: 'The USD to sell (then targetAmount is computed).',
      }),
      targetAmount: t.arg({
        type: 'Decimal',
        description: 'The amount to buy (then sourceAmount is computed).',
      }),
      lockDuration: t.arg({
        type: LockEnum,
        description: 'How long the rate stays locked (default five_minutes).',
      }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = quoteBody.body(args);
      return quoteMutation(ctx, 'createFxQuote', args.idempotencyKey, body, (svc) =>
        createQuote(svc, quoteBody.parse(body)),
      );
    },
  }),
  createFxConversion: t.field({
    type: FxConversionRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/fx/conversions: available USD into the target balance at the quote.',
    args: {
      quoteId: t.arg.id({
        required: true,
        description: 'The quote to convert at (once, before it expires).',
      }),
      reference: t.arg.string({ description: REFERENCE }),
      description: t.arg.string({ description: DESCRIPTION }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = conversionBody.body(args);
      return conversionMutation(ctx, 'createFxConversion', args.idempotencyKey, body, (svc) =>
        createConversion(svc, conversionBody.parse(body)),
      );
    },
  }),
  createFxSettlement: t.field({
    type: FxSettlementRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/fx/settlements: funded by quoteId; or targetCurrency + sourceAmount|targetAmount; or currency + amount (a balance).',
    args: {
      quoteId: t.arg.id({ description: 'Convert at this locked quote, or…' }),
      targetCurrency: t.arg({
        type: TargetEnum,
        description: '…convert now at the current rate, with sourceAmount or targetAmount, or…',
      }),
      sourceAmount: t.arg({ type: 'Decimal', description: 'With targetCurrency: the USD to sell.' }),
      targetAmount: t.arg({ type: 'Decimal', description: 'With targetCurrency: the amount to pay abroad.' }),
      currency: t.arg({ type: TargetEnum, description: '…pay out of this balance, with amount.' }),
      amount: t.arg({ type: 'Decimal', description: 'With currency: the amount to pay abroad.' }),
      destination: t.arg({
        type: DestinationInput,
        required: true,
        description: 'The account abroad to pay.',
      }),
      reference: t.arg.string({ description: REFERENCE }),
      description: t.arg.string({ description: DESCRIPTION }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = settlementBody.body(args);
      return settlementMutation(ctx, 'createFxSettlement', args.idempotencyKey, body, (svc) =>
        createSettlement(svc, settlementBody.parse(body)),
      );
    },
  }),
  simulateFxSettlementPay: t.field({
    type: FxSettlementRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/fx_settlements/{id}/pay: paid now, before its payment day.',
    args: {
      id: t.arg.id({ required: true, description: "The settlement's id." }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) =>
      settlementMutation(ctx, 'simulateFxSettlementPay', args.idempotencyKey, { id: args.id }, (svc) =>
        simulateSettlementPay(svc, String(args.id)),
      ),
  }),
  simulateFxSettlementFail: t.field({
    type: FxSettlementRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/simulate/fx_settlements/{id}/fail: refused now (code: ISO 20022, AC04 by default).',
    args: {
      id: t.arg.id({ required: true, description: "The settlement's id." }),
      code: t.arg({ type: FailureCodeEnum, description: 'The ISO 20022 reason (default AC04).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = failBody.body(args);
      return settlementMutation(
        ctx,
        'simulateFxSettlementFail',
        args.idempotencyKey,
        { id: args.id, ...body },
        (svc) => simulateSettlementFail(svc, String(args.id), failBody.parse(body)),
      );
    },
  }),
}));
