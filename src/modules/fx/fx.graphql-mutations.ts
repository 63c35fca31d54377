import { builder } from '../../graphql/builder.ts';
import { mutationsOf } from '../../graphql/context.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { createConversion, getConversion } from './fx.conversions.ts';
import { FxConversionRef, FxQuoteRef, FxSettlementRef, LockEnum, TargetEnum } from './fx.graphql.ts';
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
    name: t.string(),
    iban: t.string(),
    bankCode: t.string(),
    branchCode: t.string(),
    accountNumber: t.string(),
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
      targetCurrency: t.arg({ type: TargetEnum, required: true }),
      sourceAmount: t.arg({ type: 'Decimal' }),
      targetAmount: t.arg({ type: 'Decimal' }),
      lockDuration: t.arg({ type: LockEnum }),
      idempotencyKey: t.arg.string(),
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
      quoteId: t.arg.id({ required: true }),
      reference: t.arg.string(),
      description: t.arg.string(),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
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
      quoteId: t.arg.id(),
      targetCurrency: t.arg({ type: TargetEnum }),
      sourceAmount: t.arg({ type: 'Decimal' }),
      targetAmount: t.arg({ type: 'Decimal' }),
      currency: t.arg({ type: TargetEnum }),
      amount: t.arg({ type: 'Decimal' }),
      destination: t.arg({ type: DestinationInput, required: true }),
      reference: t.arg.string(),
      description: t.arg.string(),
      metadata: t.arg({ type: 'JSONObject' }),
      idempotencyKey: t.arg.string(),
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
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
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
    args: { id: t.arg.id({ required: true }), code: t.arg.string(), idempotencyKey: t.arg.string() },
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
