import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import type { ServiceContext } from '../context.ts';
import { quoteAmounts } from './fx.quote-math.ts';
import {
  type FxConfig,
  type FxTargetCurrency,
  hourStart,
  midRateAt,
  nextRateChangeAt,
  type Rate,
  sellRate,
} from './fx.rates.ts';
import { FX_TARGETS, type LockDuration } from './fx.schema.ts';

/**
 * The rates in force (the configured base rates and spread, `ctx.config.fx`, moved by the hour) and
 * the price of a quote at them, with the bounds of what one quote or settlement may move.
 */

/** The largest USD amount one quote sells (a sandbox bound: amounts stay far from overflow). */
const MAX_SOURCE_MINOR = 1_000_000_000n; // 10,000,000.00 USD
/** The largest target amount one quote buys or one settlement pays, in major units. */
const MAX_TARGET_MAJOR = 2_000_000_000n;

/** The most of `currency` one quote buys or one settlement pays, in minor units. */
export function maxTargetMinor(currency: FxTargetCurrency): bigint {
  return MAX_TARGET_MAJOR * 10n ** BigInt(currency === 'JPY' ? 0 : 2);
}

// ---------------------------------------------------------------------------------------------
// Rates

export interface FxRate {
  targetCurrency: FxTargetCurrency;
  mid: Rate;
  rate: Rate;
}

/** The rate of one currency at an instant: the hour's mid rate and the sell rate under it. */
function rateAt(fx: FxConfig, targetCurrency: FxTargetCurrency, instant: Date): FxRate {
  const mid = midRateAt(fx.rates[targetCurrency], targetCurrency, instant);
  return { targetCurrency, mid, rate: sellRate(mid, fx.spread) };
}

export interface FxRates {
  at: Date;
  asOf: Date;
  nextChangeAt: Date;
  spread: Rate;
  rates: FxRate[];
}

/**
 * The instants whose rates can be asked for: the instant, its hour and the next hour are then all
 * written as ISO 8601 with a four-digit year (years 0000-9999), as every timestamp of the API is.
 */
const FIRST_RATES_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const RATES_END = Date.parse('9999-12-31T23:00:00.000Z');

/**
 * GET /v1/fx/rates: the mid and sell rates of the clock's hour, or of the hour of `at` (any instant
 * of years 0000-9999 but the last hour, past or future: the rates are a pure function of time, so a
 * chart can ask for any hour). 400 parameter_invalid on `at` outside those years.
 */
export function getRates(ctx: ServiceContext, at?: Date): FxRates {
  if (at && !(at.getTime() >= FIRST_RATES_INSTANT && at.getTime() < RATES_END)) {
    throw new SandbankError('parameter_invalid', {
      param: 'at',
      message:
        'Rates are given for instants from 0000-01-01T00:00:00Z up to (not including) 9999-12-31T23:00:00Z.',
    });
  }
  const instant = at ?? ctx.clock.now();
  return {
    at: instant,
    asOf: hourStart(instant),
    nextChangeAt: nextRateChangeAt(instant),
    spread: ctx.config.fx.spread,
    rates: FX_TARGETS.map((currency) => rateAt(ctx.config.fx, currency, instant)),
  };
}

// ---------------------------------------------------------------------------------------------
// Pricing a quote

export interface QuoteRequest {
  target: FxTargetCurrency;
  sourceAmount?: unknown;
  targetAmount?: unknown;
  lockDuration: LockDuration;
}

/** The amounts of a quote request at the rate of `now` (400s for a bad or missing amount). */
export function priceQuote(fx: FxConfig, now: Date, request: QuoteRequest) {
  const { target } = request;
  const hasSource = request.sourceAmount !== undefined;
  const hasTarget = request.targetAmount !== undefined;
  if (hasSource === hasTarget) {
    throw new SandbankError(hasSource ? 'parameter_invalid' : 'parameter_missing', {
      param: 'source_amount',
      message: 'Give exactly one of source_amount (USD to sell) and target_amount (to buy).',
    });
  }
  const { mid, rate } = rateAt(fx, target, now);
  const amounts = hasSource
    ? quoteAmounts({
        rate,
        mid,
        target,
        sourceAmount: parseAmount(request.sourceAmount, 'USD', {
          param: 'source_amount',
          max: MAX_SOURCE_MINOR,
        }),
      })
    : quoteAmounts({
        rate,
        mid,
        target,
        targetAmount: parseAmount(request.targetAmount, target, {
          param: 'target_amount',
          max: maxTargetMinor(target),
        }),
      });
  if (amounts.sourceAmount > MAX_SOURCE_MINOR) {
    throw new SandbankError('amount_invalid', {
      param: 'target_amount',
      message: 'This target amount costs more than 10,000,000.00 USD, the most one quote sells.',
    });
  }
  if (amounts.targetAmount > maxTargetMinor(target)) {
    throw new SandbankError('amount_invalid', {
      param: 'source_amount',
      message: `This amount buys more than ${MAX_TARGET_MAJOR} ${target}, the most one quote buys.`,
    });
  }
  return { ...amounts, mid, sell: rate, fixedSide: hasSource ? 'source' : 'target' };
}
