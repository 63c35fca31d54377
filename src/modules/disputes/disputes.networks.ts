import reasonTable from '../../../reference/card_dispute_reasons.json' with { type: 'json' };
import { addCalendarDays } from '../../kernel/banking-days.ts';
import { nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import { describedValues } from '../../kernel/described-values.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { DISPUTE_REASONS, type DisputeReason } from './disputes.schema.ts';

/**
 * The card networks' dispute rules (docs/guide/disputes.md, "Network rules"; data and sources:
 * reference/card_dispute_reasons.json): each network's reason codes with their category and the
 * cardholder's window, which code a reason implies, and how many disputes one payment may have.
 */

export const CARD_NETWORKS = ['visa', 'mastercard', 'amex'] as const;
export type CardNetwork = (typeof CARD_NETWORKS)[number];

export const REASON_CATEGORIES = ['fraud', 'authorization', 'processing_error', 'consumer_dispute'] as const;
export type ReasonCategory = (typeof REASON_CATEGORIES)[number];

export const DisputeReasonCategoryValues = describedValues(
  'DisputeReasonCategory',
  "The network's category of a dispute's reason code.",
  {
    fraud:
      'The cardholder did not authorize the payment (Visa 10.x; Mastercard 4837, 4840, 4849, 4863, 4870, 4871; Amex F codes).',
    authorization: 'The payment lacked a valid authorization (Visa 11.x, Mastercard 4808).',
    processing_error:
      'The payment was processed wrongly: duplicate, amount, currency, data (Visa 12.x, Mastercard 4834 point-of-interaction error, Amex P codes).',
    consumer_dispute:
      'The cardholder disputes the goods, service or credit (Visa 13.x, Mastercard 4853 cardholder dispute, Amex C codes).',
  } satisfies Record<ReasonCategory, string>,
);

export interface NetworkReasonCode {
  network: CardNetwork;
  code: string;
  name: string;
  category: ReasonCategory;
  /** Calendar days after the processing date (not counted itself) the cardholder may dispute in. */
  windowDays: number;
  /** The reasons this code may carry; the first is the one it implies. */
  reasons: readonly DisputeReason[];
  /** Visa 10.5: opened whatever other disputes the payment has. */
  repeatable: boolean;
  /** The last day (ET) a dispute may be opened under it, for a retired code. */
  lastDay: string | null;
}

const CODES: readonly NetworkReasonCode[] = reasonTable.codes.map((row) => {
  const reasons = row.reasons.map((reason) => {
    if (!(DISPUTE_REASONS as readonly string[]).includes(reason)) throw new Error(`unknown reason ${reason}`);
    return reason as DisputeReason;
  });
  return {
    network: row.network as CardNetwork,
    code: row.code,
    name: row.name,
    category: row.category as ReasonCategory,
    windowDays: row.window_days,
    reasons,
    repeatable: 'repeatable' in row && row.repeatable === true,
    lastDay: 'last_day' in row ? (row.last_day as string) : null,
  };
});

const BY_KEY = new Map(CODES.map((row) => [`${row.network}:${row.code}`, row]));

const DEFAULTS = new Map<string, NetworkReasonCode>(
  reasonTable.codes.flatMap((row) =>
    (('default_for' in row ? row.default_for : undefined) ?? []).map(
      (reason) => [`${row.network}:${reason}`, BY_KEY.get(`${row.network}:${row.code}`)!] as const,
    ),
  ),
);

/** A network's codes, in table order. */
export function codesOf(network: CardNetwork): NetworkReasonCode[] {
  return CODES.filter((row) => row.network === network);
}

/** The network of a card brand (a payment's `brand`). */
export function networkOf(brand: string): CardNetwork {
  if ((CARD_NETWORKS as readonly string[]).includes(brand)) return brand as CardNetwork;
  throw new Error(`no dispute rules for card brand ${brand}`);
}

/** One code of a network (undefined when the network has no such code). */
export function findReasonCode(network: string, code: string): NetworkReasonCode | undefined {
  return BY_KEY.get(`${network}:${code}`);
}

const NETWORK_NAMES: Record<CardNetwork, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
};

/**
 * The code a new dispute is filed under, with its reason: `code` when given (400
 * dispute_reason_code_invalid unless it is one of the network's live codes and carries `reason`,
 * when that is given too), else the code the reason implies on this network.
 */
export function chooseReasonCode(
  network: CardNetwork,
  input: { code?: string | undefined; reason?: DisputeReason | undefined },
  today: string,
): { rule: NetworkReasonCode; reason: DisputeReason } {
  if (input.code === undefined) {
    const reason = input.reason ?? 'general';
    return { rule: DEFAULTS.get(`${network}:${reason}`)!, reason };
  }
  const rule = findReasonCode(network, input.code);
  const invalid = (message: string) =>
    new SandbankError('dispute_reason_code_invalid', { param: 'network_reason_code', message });
  if (!rule)
    throw invalid(
      `${input.code.slice(0, 16)} is not a ${NETWORK_NAMES[network]} reason code; this payment's network uses ${codesOf(
        network,
      )
        .map((row) => row.code)
        .join(', ')}.`,
    );
  if (rule.lastDay !== null && today > rule.lastDay)
    throw invalid(`${NETWORK_NAMES[network]} retired ${rule.code} (${rule.name}) after ${rule.lastDay}.`);
  if (input.reason !== undefined && !rule.reasons.includes(input.reason))
    throw invalid(
      `${NETWORK_NAMES[network]} ${rule.code} (${rule.name}) is a dispute for ${rule.reasons.join(' or ')}, not ${input.reason}.`,
    );
  return { rule, reason: input.reason ?? rule.reasons[0]! };
}

/**
 * The first instant a dispute under `rule` is refused for a payment processed (captured) at
 * `processedAt`: midnight ET starting the day after the window's last day. The processing date is
 * the capture's date in ET and is not counted (day 1 is the next day).
 */
export function disputeDeadlineOf(rule: NetworkReasonCode, processedAt: Date): Date {
  return nyInstant(addCalendarDays(nyDateOf(processedAt), rule.windowDays + 1), '00:00');
}

/** 409 dispute_window_closed, naming the window's last day and the first instant refused, when `now` is past it. */
export function checkDisputeWindow(rule: NetworkReasonCode, processedAt: Date, now: Date): void {
  const deadline = disputeDeadlineOf(rule, processedAt);
  if (now.getTime() < deadline.getTime()) return;
  const lastDay = addCalendarDays(nyDateOf(deadline), -1);
  throw new SandbankError('dispute_window_closed', {
    message: `${NETWORK_NAMES[rule.network]} ${rule.code} (${rule.name}) allows ${rule.windowDays} calendar days after the processing date ${nyDateOf(processedAt)}: the last day was ${lastDay} (ET); disputes are refused from ${deadline.toISOString()}.`,
    extra: { deadline: deadline.toISOString() },
  });
}

/** The part of a payment's earlier disputes that rules a new one out, or null when the network allows it. */
export function multipleDisputeRefusal(
  network: CardNetwork,
  rule: NetworkReasonCode,
  earlier: readonly { id: string; networkReasonCode: string }[],
): string | null {
  if (earlier.length === 0) return null;
  if (network === 'mastercard') return null; // partial chargebacks, up to what is captured and not refunded
  if (network === 'visa') {
    if (rule.repeatable) return null;
    const other = earlier.find((row) => !findReasonCode('visa', row.networkReasonCode)?.repeatable);
    return other
      ? `Visa allows one dispute per transaction (besides 10.5, Visa Fraud Monitoring Program), and this payment has ${other.id}.`
      : null;
  }
  return `American Express payments are disputed once; this payment has ${earlier[0]!.id}.`;
}
