import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/outbox.ts';
import { addBankingDays, addCalendarDays, nyDateOf, nyInstant } from '../../kernel/calendar.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import type { TransferRow } from './transfers.resource.ts';
import type { ReturnRule } from './transfers.return-codes.ts';
import { entryEvent, withEntry } from './transfers.rows.ts';
import { transfers, type WsudRecord } from './transfers.table.ts';

export type { WsudRecord };

/**
 * The Written Statement of Unauthorized Debit (docs/guide/bank-transfers.md, "Written statements
 * of unauthorized debit"): the receiver's signed statement that a debit was not authorized, which
 * the receiving bank must hold before it returns a debit with R05, R07, R10 or R11. Nacha lists
 * what it holds (the receiver's printed name and signature, the account, who debited it, the
 * date the entry posted, its amount, the reason, the date signed, and that it is true and that the
 * signer may act on the account); the originating bank may ask for a copy within one year of the
 * return, and the receiving bank sends it within ten banking days.
 */

/** The ODFI may ask for a copy within one year of the return; the RDFI sends it within ten banking days. */
const COPY_PROVIDE_BANKING_DAYS = 10;

/** The same date a year later (29 February: the 28th). */
function aYearAfter(day: string): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(year + 1, month, 0)).getUTCDate();
  return `${year + 1}-${String(month).padStart(2, '0')}-${String(Math.min(date, last)).padStart(2, '0')}`;
}

/** What the receiver states about the debit, by code. */
const WHAT_HAPPENED: Readonly<Record<string, string>> = {
  R05: 'This debit to my consumer account was made with a corporate entry class, and I did not authorize it.',
  R07: 'I revoked my authorization of these debits before this one was initiated.',
  R10: 'I did not authorize this debit, or I do not know the party that made it.',
  R11: 'This debit was not made in accordance with the terms of my authorization.',
};

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const instant = z.iso.datetime();

export const WsudWire = z
  .object({
    receiver_name: z.string().meta({ description: "The receiver's printed name, as signed." }),
    account_number_last4: z.string().meta({ description: 'The last 4 digits of the account debited.' }),
    debited_by: z.string().meta({ description: 'Who debited the account: the originator (the merchant).' }),
    entry_posted_on: date.meta({
      description: 'The date the entry posted to the account (its settlement date, ET).',
    }),
    reason_code: z
      .string()
      .meta({ description: 'The return code the statement supports (R05, R07, R10, R11).' }),
    reason: z.string().meta({ description: 'Why the debit is returned, in the receiver’s words.' }),
    signed_on: date.meta({ description: 'The date the receiver signed (ET): no later than the return.' }),
    statements: z.array(z.string()).meta({
      description:
        'What the receiver declares: the reason, that it is true and correct, and that they may act on the account.',
    }),
    copy_request_by: instant.meta({
      description: 'The last instant the originating bank may ask for a copy: one year after the return.',
    }),
    copy_requested_at: instant
      .nullable()
      .meta({ description: 'When the merchant asked for a copy; null before.' }),
    copy_provide_by: instant
      .nullable()
      .meta({ description: 'When the receiving bank must have sent it: 10 banking days after the request.' }),
    copy_provided_at: instant
      .nullable()
      .meta({ description: 'When the copy was sent to the merchant; null before.' }),
  })
  .meta({
    id: 'WrittenStatementOfUnauthorizedDebit',
    description:
      "The receiver's Written Statement of Unauthorized Debit that an R05, R07, R10 or R11 return stands on; null for other returns.",
  });

/** 23:59:59 ET of a New York date, as an ISO instant: the last whole second of a time frame. */
const lastSecondOf = (day: string) =>
  new Date(nyInstant(addCalendarDays(day, 1), '00:00').getTime() - 1000).toISOString();

/** The statement a return with `rule` carries, made when the entry comes back at `now`; null when the code needs none. */
export function wsudFor(row: TransferRow, rule: ReturnRule, debitedBy: string, now: Date): WsudRecord | null {
  if (!rule.wsud) return null;
  const returnedOn = nyDateOf(now);
  return {
    receiver_name: row.counterpartyName,
    account_number_last4: row.accountLast4,
    debited_by: debitedBy,
    entry_posted_on: nyDateOf(row.settledAt ?? now),
    reason_code: rule.code,
    reason: WHAT_HAPPENED[rule.code] ?? rule.title,
    signed_on: returnedOn,
    statements: [
      WHAT_HAPPENED[rule.code] ?? rule.title,
      'This statement is true and correct.',
      'I am the account holder, or authorized to act on the account.',
    ],
    copy_request_by: lastSecondOf(aYearAfter(returnedOn)),
    copy_requested_at: null,
    copy_provide_by: null,
    copy_provided_at: null,
  };
}

/** The event of a copy sent to the merchant. */
export const WSUD_COPY_EVENT = 'wsud_copy_provided';

/**
 * The merchant (through its bank) asks for a copy of the statement: 409 invalid_state when the
 * return carries none or a copy was already sent; 409 time_frame_passed after `copy_request_by`.
 * Sandbank's receiving bank sends it at once (the rule allows it ten banking days), writing
 * `transfer.wsud_copy_provided`.
 */
async function requestWsudCopy(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<TransferRow> {
  const wsud = row.wsud;
  if (!wsud)
    throw new SandbankError('invalid_state', {
      message:
        row.returnCode === null
          ? `This ${row.kind} is ${row.state}; only an entry returned R05, R07, R10 or R11 has a written statement of unauthorized debit.`
          : `This ${row.kind} was returned ${row.returnCode}, which needs no written statement of unauthorized debit (only R05, R07, R10 and R11 do).`,
    });
  if (wsud.copy_provided_at)
    throw new SandbankError('invalid_state', {
      message: `A copy of this statement was already sent (${wsud.copy_provided_at}).`,
    });
  const now = ctx.clock.now();
  const deadline = new Date(wsud.copy_request_by);
  if (now.getTime() >= deadline.getTime() + 1000)
    throw new SandbankError('time_frame_passed', {
      message: `The originating bank may ask for a copy of a written statement within one year of the return: the last allowed instant was ${wsud.copy_request_by}.`,
      extra: { deadline: new Date(deadline.getTime() + 1000).toISOString() },
    });
  const at = now.toISOString();
  const provideBy = lastSecondOf(addBankingDays(nyDateOf(now), COPY_PROVIDE_BANKING_DAYS));
  const copied: WsudRecord = {
    ...wsud,
    copy_requested_at: at,
    copy_provide_by: provideBy,
    copy_provided_at: at,
  };
  const [moved] = await tx
    .update(transfers)
    .set({ wsud: copied, updatedAt: now })
    .where(and(eq(transfers.id, row.id), eq(transfers.merchantId, row.merchantId)))
    .returning();
  if (!moved) throw new Error('the transfer vanished while its statement was copied');
  await recordEvent(tx, entryEvent(moved, ctx.publicUrl, `${row.kind}.${WSUD_COPY_EVENT}`));
  return moved;
}

/** The copy request on transfer `id`, in a transaction of its own on its row locked (REST, GraphQL, dashboard, recipe). */
export const requestWsudCopyOf = (ctx: ServiceContext, id: string): Promise<TransferRow> =>
  withEntry(ctx, 'transfer', id, (tx, row) => requestWsudCopy(tx, ctx, row));
