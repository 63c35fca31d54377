import { and, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Tx } from '../../db/client.ts';
import { objectEvent, recordEvent } from '../../db/outbox.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { isBankingDay, type LocalDate, nextBankingDay, nyInstant } from '../../kernel/calendar.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { merchantAccountNumber, type StatementDocument, totalsOf } from './statements.document.ts';
import { type PeriodActivity, readPeriod } from './statements.ledger.ts';
import { lastClosedDay, statementDayOf, statementPeriod } from './statements.period.ts';
import { statementResource } from './statements.resource.ts';
import { type StatementRow, statements } from './statements.table.ts';

function statementValues(
  merchantId: string,
  currency: CurrencyCode,
  date: LocalDate,
  activity: PeriodActivity,
  at: Date,
): StatementRow {
  const period = statementPeriod(date);
  const totals = totalsOf(activity.lines);
  return {
    id: newId('statement'),
    merchantId,
    currency,
    date,
    periodStart: period.start,
    periodEnd: period.end,
    openingLedger: activity.opening.ledger,
    closingLedger: activity.closing.ledger,
    openingAvailable: activity.opening.available,
    closingAvailable: activity.closing.available,
    creditsTotal: totals.credits,
    creditCount: totals.creditCount,
    debitsTotal: totals.debits,
    debitCount: totals.debitCount,
    createdAt: at,
  };
}

/**
 * Writes a banking day's statement with its `statement.created` event, unless it exists: the
 * existing one is answered (a day's statement is produced once).
 */
async function writeStatement(
  tx: Tx,
  publicUrl: string,
  merchantId: string,
  currency: CurrencyCode,
  date: LocalDate,
  activity: PeriodActivity,
  at: Date,
): Promise<StatementRow> {
  const values = statementValues(merchantId, currency, date, activity, at);
  const [inserted] = await tx.insert(statements).values(values).onConflictDoNothing().returning();
  if (inserted) {
    await recordEvent(
      tx,
      objectEvent(
        { ...inserted, updatedAt: inserted.createdAt },
        'statement.created',
        statementResource(inserted, publicUrl),
      ),
    );
    return inserted;
  }
  const [existing] = await tx
    .select()
    .from(statements)
    .where(
      and(
        eq(statements.merchantId, merchantId),
        eq(statements.currency, currency),
        eq(statements.date, date),
      ),
    );
  if (!existing) throw new Error(`statement ${merchantId} ${currency} ${date} neither written nor found`);
  return existing;
}

/**
 * Closes the banking days that ended on the merchant's clock since the last statement: the
 * statement of every day on which an account had a posting, each with its `statement.created`
 * event, dated at the day's end. Run after each clock advance (before the webhooks it delivers) and
 * when statements are listed, so a running clock's days are closed too. One read of the postings
 * since the last statement, however far the clock moved.
 */
export async function closeStatementDays(
  ctx: ServiceContext,
  until: Date = ctx.clock.now(),
): Promise<number> {
  const end = statementPeriod(lastClosedDay(until)).end;
  const merchantId = ctx.merchant.id;
  return inContextTx(ctx, async (tx) => {
    // Postings being written now hold the ledger's rows (FOR NO KEY UPDATE): they commit before the
    // days are read, so none lands in a day after it was closed.
    await queryRows(
      tx,
      sql`SELECT id FROM ledger_accounts WHERE merchant_id = ${merchantId} ORDER BY id FOR SHARE`,
    );
    // Per currency, from the last statement at or before the cut-off (one of a later day, left by a
    // clock put back, is no cursor), the days with postings: an index range per currency.
    const days = await queryRows<{ currency: CurrencyCode; day: string }>(
      tx,
      sql`SELECT c.currency, d.day
      FROM (SELECT DISTINCT currency FROM ledger_accounts WHERE merchant_id = ${merchantId}) c
      CROSS JOIN LATERAL (
        SELECT COALESCE(max(period_end), '-infinity'::timestamptz) AS after FROM statements
        WHERE merchant_id = ${merchantId} AND currency = c.currency AND period_end <= ${end.toISOString()}::timestamptz
      ) k
      CROSS JOIN LATERAL (
        SELECT DISTINCT to_char(p.created_at AT TIME ZONE 'America/New_York', 'YYYY-MM-DD') AS day
        FROM ledger_postings p
        WHERE p.merchant_id = ${merchantId} AND p.currency = c.currency
          AND p.created_at >= k.after AND p.created_at < ${end.toISOString()}::timestamptz
      ) d
      ORDER BY 1, 2`,
    );
    const due = [...new Set(days.map((d) => `${d.currency} ${statementDayOf(nyInstant(d.day, '12:00'))}`))];
    for (const key of due) {
      const [currency, date] = key.split(' ') as [CurrencyCode, LocalDate];
      const period = statementPeriod(date);
      const activity = await readPeriod(tx, merchantId, currency, period.start, period.end);
      await writeStatement(tx, ctx.publicUrl, merchantId, currency, date, activity, period.end);
    }
    return due.length;
  });
}

/**
 * POST /v1/statements: the statement of any past banking day, produced now if the end of the day
 * did not produce it (a day without activity, or one from before the account's ledger existed).
 */
export async function createStatement(
  ctx: ServiceContext,
  input: { currency: CurrencyCode; date: LocalDate },
): Promise<StatementRow> {
  const now = ctx.clock.now();
  if (!isBankingDay(input.date))
    throw new SandbankError('parameter_invalid', {
      param: 'date',
      message: `${input.date} is not a banking day (a weekend or a Federal Reserve holiday): what is booked on it is on the statement of ${nextBankingDay(input.date)}.`,
    });
  const period = statementPeriod(input.date);
  if (period.end.getTime() > now.getTime())
    throw new SandbankError('statement_not_ready', {
      param: 'date',
      message: `The statement of ${input.date} is ready at the end of that banking day, ${period.end.toISOString()} on the merchant's clock (now ${now.toISOString()}); the last closed day is ${lastClosedDay(now)}.`,
      extra: { ready_at: period.end.toISOString() },
    });
  // Days that ended before it and had activity are closed first, in order.
  await closeStatementDays(ctx, now);
  return inContextTx(ctx, async (tx) => {
    const activity = await readPeriod(tx, ctx.merchant.id, input.currency, period.start, period.end);
    return writeStatement(tx, ctx.publicUrl, ctx.merchant.id, input.currency, input.date, activity, now);
  });
}

export async function getStatement(ctx: ServiceContext, id: string): Promise<StatementRow> {
  const [row] = await dbOf(ctx)
    .select()
    .from(statements)
    .where(and(eq(statements.id, id), eq(statements.merchantId, ctx.merchant.id)));
  if (!row) throw new SandbankError('resource_not_found', { message: `No statement ${id.slice(0, 60)}.` });
  return row;
}

export async function listStatements(
  ctx: ServiceContext,
  query: ListQuery & { currency?: CurrencyCode | undefined; date?: LocalDate | undefined },
): Promise<Page<StatementRow>> {
  // A running clock passes the end of a day without an advance: its statements are due now.
  await closeStatementDays(ctx);
  return merchantPage(ctx, statements, query, [
    query.currency ? eq(statements.currency, query.currency) : undefined,
    query.date ? eq(statements.date, query.date) : undefined,
  ]);
}

export function statementsByIds(ctx: ServiceContext, ids: string[]): Promise<StatementRow[]> {
  return merchantRowsByIds<StatementRow>(ctx, statements, ids);
}

/** What a stored statement's files are written from: its period's lines, read again. */
export async function statementDocument(exec: Executor, row: StatementRow): Promise<StatementDocument> {
  const currency = row.currency as CurrencyCode;
  const activity = await readPeriod(exec, row.merchantId, currency, row.periodStart, row.periodEnd);
  return {
    kind: 'prior_day',
    id: row.id,
    merchantId: row.merchantId,
    currency,
    date: row.date,
    periodStart: row.periodStart,
    periodEnd: row.periodEnd,
    createdAt: row.createdAt,
    account: merchantAccountNumber(row.merchantId, currency),
    opening: activity.opening,
    closing: activity.closing,
    lines: activity.lines,
  };
}

/** The day so far: from the start of the current statement period up to the merchant's clock. */
export async function intradayDocument(
  ctx: ServiceContext,
  currency: CurrencyCode,
): Promise<StatementDocument> {
  const now = ctx.clock.now();
  const date = statementDayOf(now);
  const period = statementPeriod(date);
  const end = new Date(now.getTime() + 1);
  const activity = await readPeriod(dbOf(ctx), ctx.merchant.id, currency, period.start, end);
  return {
    kind: 'intraday',
    id: `rpt_${currency.toLowerCase()}_${date.replaceAll('-', '')}_${now.getTime().toString(36)}`,
    merchantId: ctx.merchant.id,
    currency,
    date,
    periodStart: period.start,
    periodEnd: now,
    createdAt: now,
    account: merchantAccountNumber(ctx.merchant.id, currency),
    opening: activity.opening,
    closing: activity.closing,
    lines: activity.lines,
  };
}
