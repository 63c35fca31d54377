import { and, eq, inArray, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix, type IdKind } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { toPage } from '../../kernel/pagination.ts';
import { cardPayments } from '../card-payments/card-payments.table.ts';
import { collections } from '../collections/collections.table.ts';
import type { ServiceContext } from '../context.ts';
import { fxConversions, fxSettlements } from '../fx/fx.table.ts';
import { issuingAuthorizations } from '../issuing/issuing.table.ts';
import { transfers } from '../transfers/transfers.table.ts';

/** The kinds the `transactions` list spans so far, and the table each lives in. */
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

export type TransactionRow =
  | typeof collections.$inferSelect
  | typeof cardPayments.$inferSelect
  | typeof transfers.$inferSelect
  | typeof issuingAuthorizations.$inferSelect
  | typeof fxConversions.$inferSelect
  | typeof fxSettlements.$inferSelect;

/**
 * Every transaction of the merchant across kinds, newest first. Ids are ULIDs behind their prefix,
 * so the part after the prefix orders them in time across tables; the cursor is an id.
 */
export async function listTransactions(
  ctx: ServiceContext,
  query: ListQuery & { kinds?: readonly string[] | undefined },
): Promise<Page<TransactionRow>> {
  const kinds = query.kinds ?? TRANSACTION_KINDS;
  const unknown = kinds.find((kind) => !(TRANSACTION_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined)
    throw new SandbankError('parameter_invalid', {
      param: 'kinds',
      message: `Unknown kind "${unknown.slice(0, 40)}"; kinds are ${TRANSACTION_KINDS.join(', ')}.`,
    });
  const exec = ctx.tx ?? ctx.db;
  const ulid = (column: string) => sql.raw(`substr(${column}, strpos(${column}, '_') + 1)`);
  const after = query.starting_after
    ? sql`AND ${ulid('id')} < substr(${query.starting_after}::text, strpos(${query.starting_after}::text, '_') + 1)`
    : sql``;
  const parts = [];
  if (kinds.includes('collection'))
    parts.push(sql`SELECT id FROM collections WHERE merchant_id = ${ctx.merchant.id} ${after}`);
  if (kinds.includes('card_payment'))
    parts.push(sql`SELECT id FROM card_payments WHERE merchant_id = ${ctx.merchant.id} ${after}`);
  for (const kind of ['transfer', 'payout'] as const) {
    if (kinds.includes(kind))
      parts.push(
        sql`SELECT id FROM transfers WHERE merchant_id = ${ctx.merchant.id} AND kind = ${kind} ${after}`,
      );
  }
  const ownTables = [
    ['issuing_authorization', 'issuing_authorizations'],
    ['fx_conversion', 'fx_conversions'],
    ['fx_settlement', 'fx_settlements'],
  ] as const;
  for (const [kind, table] of ownTables) {
    if (kinds.includes(kind))
      parts.push(
        sql`SELECT id FROM ${sql.identifier(table)} WHERE merchant_id = ${ctx.merchant.id} ${after}`,
      );
  }
  if (parts.length === 0) return toPage([], query.limit);
  const ids = (
    await queryRows<{ id: string }>(
      exec,
      sql`SELECT id FROM (${sql.join(parts, sql` UNION ALL `)}) AS t ORDER BY ${ulid('id')} DESC LIMIT ${query.limit + 1}`,
    )
  ).map((row) => row.id);
  const byKind = (kind: IdKind) => ids.filter((id) => hasPrefix(id, kind));
  const onRails = [...byKind('transfer'), ...byKind('payout')];
  const [cols, cards, sent, issued, converted, settled] = await Promise.all([
    byKind('collection').length
      ? exec
          .select()
          .from(collections)
          .where(
            and(eq(collections.merchantId, ctx.merchant.id), inArray(collections.id, byKind('collection'))),
          )
      : [],
    byKind('cardPayment').length
      ? exec
          .select()
          .from(cardPayments)
          .where(
            and(
              eq(cardPayments.merchantId, ctx.merchant.id),
              inArray(cardPayments.id, byKind('cardPayment')),
            ),
          )
      : [],
    onRails.length
      ? exec
          .select()
          .from(transfers)
          .where(and(eq(transfers.merchantId, ctx.merchant.id), inArray(transfers.id, onRails)))
      : [],
    byKind('issuingAuthorization').length
      ? exec
          .select()
          .from(issuingAuthorizations)
          .where(
            and(
              eq(issuingAuthorizations.merchantId, ctx.merchant.id),
              inArray(issuingAuthorizations.id, byKind('issuingAuthorization')),
            ),
          )
      : [],
    byKind('fxConversion').length
      ? exec
          .select()
          .from(fxConversions)
          .where(
            and(
              eq(fxConversions.merchantId, ctx.merchant.id),
              inArray(fxConversions.id, byKind('fxConversion')),
            ),
          )
      : [],
    byKind('fxSettlement').length
      ? exec
          .select()
          .from(fxSettlements)
          .where(
            and(
              eq(fxSettlements.merchantId, ctx.merchant.id),
              inArray(fxSettlements.id, byKind('fxSettlement')),
            ),
          )
      : [],
  ]);
  const rows = new Map<string, TransactionRow>(
    [...cols, ...cards, ...sent, ...issued, ...converted, ...settled].map((row) => [row.id, row]),
  );
  return toPage(
    ids.flatMap((id) => rows.get(id) ?? []),
    query.limit,
  );
}
