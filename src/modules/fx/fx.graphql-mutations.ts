import { builder } from '../../graphql/builder.ts';
import { mutationsOf } from '../../graphql/context.ts';
import { withoutNulls } from '../../graphql/inputs.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { createConversion, getConversion } from './fx.conversions.ts';
import { FxConversionRef, FxQuoteRef, FxSettlementRef, LockEnum, TargetEnum } from './fx.graphql.ts';
import { createQuote, getQuote } from './fx.quotes.ts';
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

const quoteMutation = mutationsOf(getQuote);
const conversionMutation = mutationsOf(getConversion);
const settlementMutation = mutationsOf(getSettlement);

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
      const raw = withoutNulls({
        target_currency: args.targetCurrency,
        source_amount: args.sourceAmount,
        target_amount: args.targetAmount,
        lock_duration: args.lockDuration,
      });
      return quoteMutation(ctx, 'createFxQuote', args.idempotencyKey, raw, (svc) => createQuote(svc, raw));
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
      const raw = withoutNulls({
        quote_id: String(args.quoteId),
        reference: args.reference,
        description: args.description,
        metadata: args.metadata,
      });
      return conversionMutation(ctx, 'createFxConversion', args.idempotencyKey, raw, (svc) =>
        createConversion(svc, raw),
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
      const d = args.destination;
      const raw = withoutNulls({
        quote_id: args.quoteId === null || args.quoteId === undefined ? undefined : String(args.quoteId),
        target_currency: args.targetCurrency,
        source_amount: args.sourceAmount,
        target_amount: args.targetAmount,
        currency: args.currency,
        amount: args.amount,
        destination: withoutNulls({
          name: d.name,
          iban: d.iban,
          bank_code: d.bankCode,
          branch_code: d.branchCode,
          account_number: d.accountNumber,
        }),
        reference: args.reference,
        description: args.description,
        metadata: args.metadata,
      });
      return settlementMutation(ctx, 'createFxSettlement', args.idempotencyKey, raw, (svc) =>
        createSettlement(svc, raw),
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
      const raw = withoutNulls({ code: args.code });
      return settlementMutation(
        ctx,
        'simulateFxSettlementFail',
        args.idempotencyKey,
        { id: args.id, ...raw },
        (svc) => simulateSettlementFail(svc, String(args.id), raw),
      );
    },
  }),
}));
