/**
 * The Fedwire Funds Service as Sandbank simulates it (docs/guide/wires.md; data and sources:
 * reference/rails_and_lifecycle.json `fedwire`): its operating day, IMAD and OMAD references, the
 * ISO 20022 reasons of returns and recalls, and the magic accounts of wires. Pure and clock-free.
 */
import { createHash } from 'node:crypto';
import rails from '../../../reference/rails_and_lifecycle.json' with { type: 'json' };
import { addCalendarDays, isBankingDay, type LocalDate, nyDateOf, nyInstant } from '../../kernel/calendar.ts';

const FEDWIRE = rails.fedwire;
const OPENS = FEDWIRE.operating_day.opens_et_previous_calendar_day;
const CUTOFF = FEDWIRE.operating_day.customer_transfer_cutoff_et;

/** The largest wire, in cents: the amount tag's twelve digits of cents. */
export const WIRE_LIMIT_MINOR = BigInt(FEDWIRE.max_amount_usd.replace('.', ''));

/** An operating day of the service (a banking day), from its opening the evening before to the customer cut-off. */
export interface WireWindow {
  /** The operating day (its IMAD cycle date). */
  date: LocalDate;
  opensAt: Date;
  cutoffAt: Date;
}

function windowOf(date: LocalDate): WireWindow {
  return { date, opensAt: nyInstant(addCalendarDays(date, -1), OPENS), cutoffAt: nyInstant(date, CUTOFF) };
}

/**
 * The operating day a customer wire sent at `instant` goes in, and when it is processed: at once
 * inside a window (`processesAt` = the instant), else at the next window's opening — after the
 * cut-off, overnight before 21:00 ET, on weekends and Federal Reserve holidays.
 */
export function wireWindowFor(instant: Date): WireWindow & { processesAt: Date } {
  let date = nyDateOf(instant);
  // From 21:00 ET the next calendar day's window may already be open.
  for (let i = 0; i < 10; i++, date = addCalendarDays(date, 1)) {
    if (!isBankingDay(date)) continue;
    const window = windowOf(date);
    if (instant.getTime() >= window.cutoffAt.getTime()) continue;
    const processesAt = instant.getTime() < window.opensAt.getTime() ? window.opensAt : instant;
    return { ...window, processesAt };
  }
  throw new Error(`fedwire: no operating day within 10 days of ${instant.toISOString()}`);
}

/** Whether the service takes customer transfers at `instant`. */
export function wireOpenAt(instant: Date): boolean {
  return wireWindowFor(instant).processesAt.getTime() === instant.getTime();
}

/** Seconds from a wire's processing to its completion: the service settles it at once. */
export const WIRE_SETTLEMENT_SECONDS = 2;

/** Sandbank's Fedwire input source and output destination (8 characters each, as the formats have). */
const SANDBANK_LTERM = 'SBNKUS33';

/** Six digits for a wire's sequence numbers, from its id (distinct wires: distinct ids). */
function sequenceOf(id: string, salt: string): string {
  const n = createHash('sha256').update(`${salt}:${id}`).digest().readUInt32BE(0) % 1_000_000;
  return String(n).padStart(6, '0');
}

const compact = (date: LocalDate) => date.replaceAll('-', '');

/** The IMAD of a wire sent in operating day `cycleDate`: cycle date (8), input source (8), sequence (6). */
export function imadOf(id: string, cycleDate: LocalDate): string {
  return `${compact(cycleDate)}${SANDBANK_LTERM}${sequenceOf(id, 'imad')}`;
}

/**
 * The OMAD of a wire delivered at `at`: cycle date (8), output destination (8), output sequence
 * (6), output date MMDD and time HHMM in ET (4 + 4), the Fedwire application id (4).
 */
export function omadOf(id: string, cycleDate: LocalDate, at: Date): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${compact(cycleDate)}${SANDBANK_LTERM}${sequenceOf(id, 'omad')}${part('month')}${part('day')}${part('hour')}${part('minute')}FT03`;
}

export const WIRE_RECALL_REASONS = FEDWIRE.recall_reasons as Record<string, string>;
export const WIRE_RECALL_REFUSALS = FEDWIRE.recall_refusal_reasons as Record<string, string>;
export const WIRE_RETURN_REASONS = FEDWIRE.return_reasons as Record<string, string>;
export type WireRecallReason = keyof typeof FEDWIRE.recall_reasons;

/** How long the beneficiary's bank takes to answer a recall, or to return a wire it cannot credit. */
export const WIRE_BANK_ANSWER_SECONDS = 3600;

/** When a bank answering `seconds` after `from` does, inside the service's hours (else at the next opening). */
export function wireAnswerAt(from: Date, seconds: number): Date {
  return wireWindowFor(new Date(from.getTime() + seconds * 1000)).processesAt;
}

/** What the beneficiary's bank does with a wire to this account number. */
export type WireBehavior =
  | { kind: 'succeeds' }
  | { kind: 'returned'; code: 'AC01' | 'AC04' }
  | { kind: 'recall_refused'; code: 'CUST' };

/** The magic account numbers of wires, in the README's order (the ACH ones that mean the same). */
export const WIRE_MAGIC_ACCOUNTS: readonly {
  accountNumber: string;
  outcome: string;
  behavior: WireBehavior;
}[] = [
  {
    accountNumber: '000111111113',
    outcome: 'completes, then returned AC04 (closed account) an hour later',
    behavior: { kind: 'returned', code: 'AC04' },
  },
  {
    accountNumber: '000111111116',
    outcome: 'completes, then returned AC01 (incorrect account number) an hour later',
    behavior: { kind: 'returned', code: 'AC01' },
  },
  {
    accountNumber: '000666666661',
    outcome: 'completes; a recall is refused (CUST)',
    behavior: { kind: 'recall_refused', code: 'CUST' },
  },
];

export function wireBehavior(accountNumber: string): WireBehavior {
  return (
    WIRE_MAGIC_ACCOUNTS.find((row) => row.accountNumber === accountNumber)?.behavior ?? { kind: 'succeeds' }
  );
}
