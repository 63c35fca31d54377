/**
 * The issuing side's decisions, pure and clock-free: spending-control windows in UTC,
 * what counts against a limit, and which decline reason wins. Merchant category codes come from
 * reference/mcc.json (names) and ISO 8583 response codes from reference/iso8583_response_codes.json.
 */
import mccReference from '../../../reference/mcc.json' with { type: 'json' };
import { SandbankError } from '../../kernel/errors.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';

export const LIMIT_INTERVALS = [
  'per_authorization',
  'daily',
  'weekly',
  'monthly',
  'yearly',
  'all_time',
] as const;
export type LimitInterval = (typeof LIMIT_INTERVALS)[number];

export interface SpendingLimit {
  /** USD cents. */
  amount: bigint;
  interval: LimitInterval;
}

export interface SpendingControls {
  limits: SpendingLimit[];
  allowedMccs: string[] | null;
  blockedMccs: string[];
}

/**
 * Decline reasons in precedence order: when several apply, the first one listed wins. The card's
 * own state first (canceled, then frozen, then expired), then where the money is spent (a blocked
 * category, then one outside the allowed list), then how much (limits, narrowest interval first),
 * and last whether the balance can fund it.
 */
export const DECLINE_REASONS = [
  'card_canceled',
  'card_frozen',
  'card_expired',
  'mcc_blocked',
  'mcc_not_allowed',
  'spending_limit_exceeded',
  'insufficient_funds',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** The ISO 8583 field 39 code of each decline, and the acquirer's decline code in the closed loop. */
export const DECLINES: Readonly<Record<DeclineReason, { iso: string; acquirerCode: string }>> = {
  card_canceled: { iso: '14', acquirerCode: 'invalid_account' },
  card_frozen: { iso: '62', acquirerCode: 'restricted_card' },
  card_expired: { iso: '54', acquirerCode: 'expired_card' },
  mcc_blocked: { iso: '57', acquirerCode: 'transaction_not_allowed' },
  mcc_not_allowed: { iso: '57', acquirerCode: 'transaction_not_allowed' },
  spending_limit_exceeded: { iso: '61', acquirerCode: 'card_velocity_exceeded' },
  insufficient_funds: { iso: '51', acquirerCode: 'insufficient_funds' },
};

for (const { iso } of Object.values(DECLINES)) {
  if (!networkResponseDescription(iso)) throw new Error(`ISO 8583 code ${iso} is not in the reference`);
}

const MCC_NAMES: ReadonlyMap<string, string> = new Map(
  mccReference.mcc.map((row) => [row.code, row.irs_description ?? row.description]),
);

/** The reference's name of a merchant category code, when it lists it. */
export function mccName(mcc: string): string | null {
  return MCC_NAMES.get(mcc) ?? null;
}

/**
 * An ISO 18245 merchant category code: four digits, 0001-9999 (every such code falls in one of the
 * standard's ranges; the reference names the common ones). Throws 400 parameter_invalid otherwise.
 */
export function validateMcc(mcc: string, param: string): string {
  if (!/^\d{4}$/.test(mcc) || mcc === '0000') {
    throw new SandbankError('parameter_invalid', {
      param,
      message: `${mcc.slice(0, 12)} is not a merchant category code (ISO 18245: four digits, 0001-9999).`,
    });
  }
  return mcc;
}

// ---------------------------------------------------------------------------------------------
// Windows

/**
 * The start of the calendar window in UTC that `at` falls in: days start 00:00 UTC, weeks on
 * Monday, months on the 1st, years on 1 January; all_time is the beginning of time. Null for
 * per_authorization (no window: the limit applies to each authorization alone).
 */
export function windowStart(interval: LimitInterval, at: Date): Date | null {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const d = at.getUTCDate();
  switch (interval) {
    case 'per_authorization':
      return null;
    case 'daily':
      return new Date(Date.UTC(y, m, d));
    case 'weekly': {
      const sinceMonday = (at.getUTCDay() + 6) % 7; // getUTCDay: Sunday 0 … Saturday 6
      return new Date(Date.UTC(y, m, d - sinceMonday));
    }
    case 'monthly':
      return new Date(Date.UTC(y, m, 1));
    case 'yearly':
      return new Date(Date.UTC(y, 0, 1));
    case 'all_time':
      return new Date(0);
  }
}

/** An earlier authorization of the card, as far as limits are concerned. */
export interface PriorSpend {
  createdAt: Date;
  state: string;
  amount: bigint;
  amountReversed: bigint;
  amountCaptured: bigint;
}

/**
 * What an authorization counts against its card's limits: an approved one its amount less what was
 * reversed; a captured one what was captured (clearing replaces the authorized amount), refunds
 * included — a refund gives money back but does not give back limit; a reversed, expired or
 * declined one nothing.
 */
export function countedAmount(spend: PriorSpend): bigint {
  if (spend.state === 'approved') return spend.amount - spend.amountReversed;
  if (spend.state === 'captured') return spend.amountCaptured;
  return 0n;
}

/** What was spent in the window of `interval` around `now` (from its start up to now). */
export function spentInWindow(prior: readonly PriorSpend[], interval: LimitInterval, now: Date): bigint {
  const start = windowStart(interval, now);
  if (!start) return 0n;
  return prior
    .filter((spend) => spend.createdAt.getTime() >= start.getTime())
    .reduce((total, spend) => total + countedAmount(spend), 0n);
}

/** The first limit an authorization of `amount` would exceed, narrowest interval first, or null. */
export function trippedLimit(
  limits: readonly SpendingLimit[],
  prior: readonly PriorSpend[],
  amount: bigint,
  now: Date,
): SpendingLimit | null {
  const ordered = [...limits].sort(
    (a, b) =>
      LIMIT_INTERVALS.indexOf(a.interval) - LIMIT_INTERVALS.indexOf(b.interval) ||
      Number(a.amount - b.amount),
  );
  for (const limit of ordered) {
    const spent = limit.interval === 'per_authorization' ? 0n : spentInWindow(prior, limit.interval, now);
    if (spent + amount > limit.amount) return limit;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The decision

export interface AuthorizationRequest {
  card: { state: string; expMonth: number; expYear: number; controls: SpendingControls };
  amount: bigint;
  mcc: string;
  now: Date;
  prior: readonly PriorSpend[];
}

export type IssuingDecision =
  | { outcome: 'approved' }
  | { outcome: 'declined'; reason: DeclineReason; interval: LimitInterval | null };

/** A card is good through the last millisecond (UTC) of its expiry month. */
export function cardExpired(card: { expMonth: number; expYear: number }, now: Date): boolean {
  return now.getTime() >= Date.UTC(card.expYear, card.expMonth, 1);
}

/**
 * Everything the issuer decides before it looks at the balance, in the precedence of
 * DECLINE_REASONS; the caller then tries to hold the funds (insufficient_funds, last).
 */
export function decideIssuing(request: AuthorizationRequest): IssuingDecision {
  const { card, mcc, now } = request;
  const decline = (reason: DeclineReason, interval: LimitInterval | null = null): IssuingDecision => ({
    outcome: 'declined',
    reason,
    interval,
  });
  if (card.state === 'canceled') return decline('card_canceled');
  if (card.state === 'frozen') return decline('card_frozen');
  if (cardExpired(card, now)) return decline('card_expired');
  if (card.controls.blockedMccs.includes(mcc)) return decline('mcc_blocked');
  if (card.controls.allowedMccs && !card.controls.allowedMccs.includes(mcc))
    return decline('mcc_not_allowed');
  const limit = trippedLimit(card.controls.limits, request.prior, request.amount, now);
  if (limit) return decline('spending_limit_exceeded', limit.interval);
  return { outcome: 'approved' };
}
