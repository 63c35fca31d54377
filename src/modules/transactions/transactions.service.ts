import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { toPage } from '../../kernel/pagination.ts';
import { getCardPayment } from '../card-payments/card-payments.read.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import { type CardPaymentDetail, refundsOf } from '../card-payments/card-payments.rows.ts';
import { cardPayments } from '../card-payments/card-payments.table.ts';
import type { CollectionRow } from '../collections/collections.resource.ts';
import { type CollectionDetail, getCollection } from '../collections/collections.service.ts';
import { collections } from '../collections/collections.table.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { objectKindOf } from '../events/events.kinds.ts';
import { getConversion } from '../fx/fx.conversions.ts';
import type { FxConversionRow, FxSettlementRow } from '../fx/fx.resource.ts';
import { getSettlement } from '../fx/fx.settlements.ts';
import { fxConversions, fxSettlements } from '../fx/fx.table.ts';
import { getAuthorization } from '../issuing/issuing.read.ts';
import type { IssuingAuthorizationRow } from '../issuing/issuing.resource.ts';
import { issuingAuthorizations } from '../issuing/issuing.table.ts';
import { getPayout, getTransfer } from '../transfers/transfers.read.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { transfers } from '../transfers/transfers.table.ts';

/** The kinds the `transactions` list spans, and the table each lives in. */
export const TRANSACTION_KINDS = [
  'collection',
  'card_payment',
  'transfer',
  'payout',
  'issuing_authorization',
  'fx_conversion',
  'fx_settlement',
] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];

/** A row of any kind (card payments with their refunds). */
export type TransactionRow =
  | CollectionRow
  | CardPaymentDetail
  | TransferRow
  | IssuingAuthorizationRow
  | FxConversionRow
  | FxSettlementRow;

type Variant<K extends TransactionKind, R> = { kind: K; row: R };

/** A row with its kind, so a renderer can switch on it; `C` is the collection's shape. */
export type TypedTransaction<C extends CollectionRow = CollectionRow> =
  | Variant<'collection', C>
  | Variant<'card_payment', CardPaymentDetail>
  | Variant<'transfer', TransferRow>
  | Variant<'payout', TransferRow>
  | Variant<'issuing_authorization', IssuingAuthorizationRow>
  | Variant<'fx_conversion', FxConversionRow>
  | Variant<'fx_settlement', FxSettlementRow>;

/** One transaction as getTransaction returns it: a collection with its payments. */
export type TransactionDetail = TypedTransaction<CollectionDetail>;

/** The kind of a transaction row, from its id's prefix. */
export function typedTransaction(row: TransactionRow): TypedTransaction {
  const kind = objectKindOf(row.id);
  if (!(TRANSACTION_KINDS as readonly string[]).includes(kind ?? ''))
    throw new Error(`not a transaction: ${row.id}`);
  return { kind, row } as TypedTransaction;
}

/** Filters of the transactions list (GET /v1/transactions, the `transactions` connection). */
export interface TransactionFilters {
  kinds?: readonly string[] | undefined;
  /** The state, exactly (each kind names its own states). */
  state?: string | undefined;
  /** Created at or after this clock instant. */
  created_from?: Date | undefined;
  /** Created before this clock instant. */
  created_to?: Date | undefined;
  /** Search: see `searchCondition`. */
  q?: string | undefined;
}

export const SEARCH_MAX_LENGTH = 100;

function invalid(param: string, message: string): SandbankError {
  return new SandbankError('parameter_invalid', { param, message });
}

function checkFilters(filters: TransactionFilters): void {
  const unknown = filters.kinds?.find((kind) => !(TRANSACTION_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined)
    throw invalid(
      'kinds',
      `Unknown kind "${unknown.slice(0, 40)}"; kinds are ${TRANSACTION_KINDS.join(', ')}.`,
    );
  if (filters.state !== undefined && !/^[a-z_]{1,40}$/.test(filters.state))
    throw invalid('state', 'A state is lowercase letters and underscores, like "settled".');
  if (filters.q !== undefined && (filters.q.length > SEARCH_MAX_LENGTH || filters.q.includes('\u0000')))
    throw invalid('q', `A search is at most ${SEARCH_MAX_LENGTH} characters, without U+0000.`);
  const { created_from: from, created_to: to } = filters;
  for (const [param, at] of [
    ['created_from', from],
    ['created_to', to],
  ] as const) {
    if (at && Number.isNaN(at.getTime())) throw invalid(param, `${param} is not a valid instant.`);
    if (at && (at.getTime() < EARLIEST_FILTER_MS || at.getTime() > LATEST_FILTER_MS))
      throw invalid(param, `${param} must be between 1970-01-01 and 9999-12-31.`);
  }
  if (from && to && to <= from) throw invalid('created_to', 'created_to must be later than created_from.');
}

/** The instants a date filter may name (a database timestamp holds them; far wider than any clock). */
const EARLIEST_FILTER_MS = Date.UTC(1970, 0, 1);
const LATEST_FILTER_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The search `q`, case-insensitively: the exact id of the transaction, of one of its events
 * (`evt_…`) or, for a card payment, of one of its refunds (`re_…`); or a part of its reference
 * ("contains": `ord-12` finds `ORD-1234` and `x-ord-12`). Blank searches match everything.
 */
function searchCondition(merchantId: string, q: string): SQL {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`AND (lower(id) = lower(${q})
    OR id IN (SELECT object_id FROM events WHERE id = ${q} AND merchant_id = ${merchantId})
    OR id IN (SELECT card_payment_id FROM card_refunds WHERE id = ${q} AND merchant_id = ${merchantId})
    OR reference ILIKE ${pattern} ESCAPE '\\')`;
}

/** The filters as SQL conditions on the columns every transaction table has. */
function filterConditions(merchantId: string, filters: TransactionFilters): SQL {
  const parts: SQL[] = [];
  if (filters.state) parts.push(sql`AND state = ${filters.state}`);
  if (filters.created_from)
    parts.push(sql`AND created_at >= ${filters.created_from.toISOString()}::timestamptz`);
  if (filters.created_to) parts.push(sql`AND created_at < ${filters.created_to.toISOString()}::timestamptz`);
  const q = filters.q?.trim();
  if (q) parts.push(searchCondition(merchantId, q));
  return sql.join(parts, sql` `);
}

const ulid = (column: string) => sql.raw(`substr(${column}, strpos(${column}, '_') + 1)`);

/** Each kind's table, and the condition that tells its rows apart when a table holds two kinds. */
const SOURCES: Record<TransactionKind, { table: string; only?: SQL }> = {
  collection: { table: 'collections' },
  card_payment: { table: 'card_payments' },
  transfer: { table: 'transfers', only: sql`AND kind = 'transfer'` },
  payout: { table: 'transfers', only: sql`AND kind = 'payout'` },
  issuing_authorization: { table: 'issuing_authorizations' },
  fx_conversion: { table: 'fx_conversions' },
  fx_settlement: { table: 'fx_settlements' },
};

/** The ids of one page, newest first: one UNION ALL of the kinds' tables, ordered by ULID. */
async function pageIds(
  exec: Executor,
  merchantId: string,
  query: ListQuery & TransactionFilters,
): Promise<string[]> {
  const kinds = query.kinds ?? TRANSACTION_KINDS;
  const after = query.starting_after
    ? sql`AND ${ulid('id')} < substr(${query.starting_after}::text, strpos(${query.starting_after}::text, '_') + 1)`
    : sql``;
  const filters = filterConditions(merchantId, query);
  const parts = TRANSACTION_KINDS.filter((kind) => kinds.includes(kind)).map((kind) => {
    const { table, only } = SOURCES[kind];
    return sql`SELECT id FROM ${sql.identifier(table)} WHERE merchant_id = ${merchantId} ${only ?? sql``} ${after} ${filters}`;
  });
  if (parts.length === 0) return [];
  const rows = await queryRows<{ id: string }>(
    exec,
    sql`SELECT id FROM (${sql.join(parts, sql` UNION ALL `)}) AS t ORDER BY ${ulid('id')} DESC LIMIT ${query.limit + 1}`,
  );
  return rows.map((row) => row.id);
}

type RowTable =
  | typeof collections
  | typeof transfers
  | typeof issuingAuthorizations
  | typeof fxConversions
  | typeof fxSettlements;

async function rowsOf(exec: Executor, table: RowTable, merchantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await exec
    .select()
    .from(table)
    .where(and(eq(table.merchantId, merchantId), inArray(table.id, ids)));
  return rows as TransactionRow[];
}

/** Card payments with their refunds (the API renders a payment with them). */
async function cardPaymentsWithRefunds(
  exec: Executor,
  merchantId: string,
  ids: string[],
): Promise<CardPaymentDetail[]> {
  if (ids.length === 0) return [];
  const payments: CardPaymentRow[] = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.merchantId, merchantId), inArray(cardPayments.id, ids)));
  const refunds = await refundsOf(exec, ids);
  return payments.map((p) => ({ ...p, refunds: refunds.get(p.id) ?? [] }));
}

/** Loads the rows of the ids, of whatever kinds, in the ids' order. */
async function loadRows(exec: Executor, merchantId: string, ids: string[]): Promise<TransactionRow[]> {
  const having = (...kinds: TransactionKind[]) =>
    ids.filter((id) => (kinds as string[]).includes(objectKindOf(id) ?? ''));
  const loaded = await Promise.all([
    rowsOf(exec, collections, merchantId, having('collection')),
    cardPaymentsWithRefunds(exec, merchantId, having('card_payment')),
    rowsOf(exec, transfers, merchantId, having('transfer', 'payout')),
    rowsOf(exec, issuingAuthorizations, merchantId, having('issuing_authorization')),
    rowsOf(exec, fxConversions, merchantId, having('fx_conversion')),
    rowsOf(exec, fxSettlements, merchantId, having('fx_settlement')),
  ]);
  const byId = new Map<string, TransactionRow>(loaded.flat().map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Every transaction of the merchant across kinds, newest first, optionally filtered (see
 * TransactionFilters; `created_from` inclusive, `created_to` exclusive, both clock time). Ids are
 * ULIDs behind their prefix, so the part after the prefix orders them in time across tables; the
 * cursor is an id.
 */
export async function listTransactions(
  ctx: ServiceContext,
  query: ListQuery & TransactionFilters,
): Promise<Page<TransactionRow>> {
  checkFilters(query);
  const exec = dbOf(ctx);
  const ids = await pageIds(exec, ctx.merchant.id, query);
  return toPage(await loadRows(exec, ctx.merchant.id, ids), query.limit);
}

/** How each kind's own module finds one of the merchant's objects (404 resource_not_found otherwise). */
const GETTERS: {
  [K in TransactionKind]: (
    ctx: ServiceContext,
    id: string,
  ) => Promise<Extract<TransactionDetail, { kind: K }>['row']>;
} = {
  collection: getCollection,
  card_payment: getCardPayment,
  transfer: getTransfer,
  payout: getPayout,
  issuing_authorization: getAuthorization,
  fx_conversion: getConversion,
  fx_settlement: getSettlement,
};

/** One transaction of any kind by its id (its prefix names the kind); never another merchant's. */
export async function getTransaction(ctx: ServiceContext, id: string): Promise<TransactionDetail> {
  const kind = objectKindOf(id);
  const known = kind !== null && (TRANSACTION_KINDS as readonly string[]).includes(kind);
  if (!known || id.length > 64 || id.includes('\u0000'))
    throw new SandbankError('resource_not_found', { message: `No transaction ${id.slice(0, 64)}.` });
  const row = await GETTERS[kind as TransactionKind](ctx, id);
  return { kind, row } as TransactionDetail;
}
