import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';

/**
 * A statement's line: one ledger posting that changed the account's ledger balance (money in or
 * out). Postings that only move money inside the account — pending funds becoming available, a
 * hold placed on or released from available funds — change what is available, not the ledger
 * balance, and are not lines.
 */
export interface StatementLine {
  /** The posting (btx_…): the bank's reference of the line. */
  postingId: string;
  type: string;
  sourceType: string;
  sourceId: string;
  description: string | null;
  bookedAt: Date;
  /** Signed minor units: positive is a credit. */
  amount: bigint;
  /** Whether the money is available at once (false: it arrived in pending, available later). */
  immediate: boolean;
  /** The rail of a transfer, payout or inbound transfer; null for other sources. */
  rail: string | null;
  /** A transfer's or an inbound transfer's direction (credit: money to the receiver). */
  direction: string | null;
  counterparty: string | null;
  reference: string | null;
}

export interface LedgerBalances {
  /** available + pending + reserved: everything booked. */
  ledger: bigint;
  /** What can be spent: pending funds and holds excluded. */
  available: bigint;
}

export interface PeriodActivity {
  opening: LedgerBalances;
  closing: LedgerBalances;
  lines: StatementLine[];
  /** Postings in the period, lines or not (an availability change alone is activity). */
  postings: number;
}

interface BalanceRow {
  opening_ledger: string;
  opening_available: string;
  closing_ledger: string;
  closing_available: string;
  postings: string;
}

interface LineRow {
  id: string;
  type: string;
  source_type: string;
  source_id: string;
  description: string | null;
  created_at: string | Date;
  amount: string;
  pending: string;
  rail: string | null;
  direction: string | null;
  counterparty: string | null;
  reference: string | null;
}

/**
 * The account's balances at `start` and `end` and the lines booked in [start, end), from the
 * postings: the same running sums the balances are kept as, so a statement's closing balance is
 * the ledger's at the cut-off.
 */
export async function readPeriod(
  exec: Executor,
  merchantId: string,
  currency: CurrencyCode,
  start: Date,
  end: Date,
): Promise<PeriodActivity> {
  const [balances] = await queryRows<BalanceRow>(
    exec,
    sql`SELECT
      COALESCE(SUM(available_delta + pending_delta + reserved_delta) FILTER (WHERE created_at < ${start.toISOString()}::timestamptz), 0)::text AS opening_ledger,
      COALESCE(SUM(available_delta) FILTER (WHERE created_at < ${start.toISOString()}::timestamptz), 0)::text AS opening_available,
      COALESCE(SUM(available_delta + pending_delta + reserved_delta), 0)::text AS closing_ledger,
      COALESCE(SUM(available_delta), 0)::text AS closing_available,
      COUNT(*) FILTER (WHERE created_at >= ${start.toISOString()}::timestamptz)::text AS postings
    FROM ledger_postings
    WHERE merchant_id = ${merchantId} AND currency = ${currency} AND created_at < ${end.toISOString()}::timestamptz`,
  );
  const rows = await queryRows<LineRow>(
    exec,
    sql`SELECT p.id, p.type, p.source_type, p.source_id, p.description, p.created_at,
      (p.available_delta + p.pending_delta + p.reserved_delta)::text AS amount,
      p.pending_delta::text AS pending,
      COALESCE(t.rail, i.rail) AS rail, COALESCE(t.direction, i.direction) AS direction,
      COALESCE(t.counterparty_name, i.originator_name) AS counterparty,
      COALESCE(t.reference, i.reference) AS reference
    FROM ledger_postings p
    LEFT JOIN transfers t ON t.id = p.source_id AND p.source_type IN ('transfer', 'payout')
    LEFT JOIN inbound_transfers i ON i.id = p.source_id AND p.source_type = 'inbound_transfer'
    WHERE p.merchant_id = ${merchantId} AND p.currency = ${currency}
      AND p.created_at >= ${start.toISOString()}::timestamptz AND p.created_at < ${end.toISOString()}::timestamptz
      AND p.available_delta + p.pending_delta + p.reserved_delta <> 0
    ORDER BY p.created_at, p.id`,
  );
  const row = balances as BalanceRow;
  return {
    opening: { ledger: BigInt(row.opening_ledger), available: BigInt(row.opening_available) },
    closing: { ledger: BigInt(row.closing_ledger), available: BigInt(row.closing_available) },
    postings: Number(row.postings),
    lines: rows.map((r) => ({
      postingId: r.id,
      type: r.type,
      sourceType: r.source_type,
      sourceId: r.source_id,
      description: r.description,
      bookedAt: new Date(r.created_at),
      amount: BigInt(r.amount),
      immediate: BigInt(r.pending) <= 0n,
      rail: r.rail,
      direction: r.direction,
      counterparty: r.counterparty,
      reference: r.reference,
    })),
  };
}

/** The currencies the merchant has a ledger in. */
export async function ledgerCurrencies(exec: Executor, merchantId: string): Promise<CurrencyCode[]> {
  const rows = await queryRows<{ currency: CurrencyCode }>(
    exec,
    sql`SELECT DISTINCT currency FROM ledger_accounts WHERE merchant_id = ${merchantId} ORDER BY currency`,
  );
  return rows.map((r) => r.currency);
}
