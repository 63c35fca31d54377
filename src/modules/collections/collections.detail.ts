import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { type Nested, nestedRows } from '../../db/nested.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { cardPaymentsOfCollection } from '../card-payments/card-payments.read.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { debitsOfCollectionRelation } from '../transfers/transfers.read.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import type { AttemptRow, CollectionRow } from './collections.resource.ts';
import { collections, paymentAttempts } from './collections.table.ts';

export interface CollectionWithRelations {
  row: CollectionRow;
  attempts: AttemptRow[];
  debits: TransferRow[];
  cardPayments: CardPaymentDetail[];
}

/**
 * The merchant's collection named by `reference`: a generated reference is the collection's id, and
 * merchant references never start with "col_". `null` for a reference no collection can have.
 */
export function byReference(merchantId: string, reference: string): SQL | null {
  // Postgres text cannot hold U+0000: such a reference names no collection (a 404, not a 500).
  if (reference.includes('\u0000')) return null;
  const column = hasPrefix(reference, 'collection') ? collections.id : collections.reference;
  return and(eq(collections.merchantId, merchantId), eq(column, reference)) ?? null;
}

/** A collection's relations, read by the collection's own query (one statement for the detail). */
let relations:
  | {
      attempts: Nested<AttemptRow>;
      debits: Nested<TransferRow>;
      cardPayments: Nested<CardPaymentDetail>;
    }
  | undefined;
function detailRelations() {
  relations ??= {
    attempts: nestedRows(paymentAttempts, {
      where: sql`${paymentAttempts.collectionId} = ${collections.id}`,
      orderBy: sql`${paymentAttempts.id} DESC`,
    }),
    debits: debitsOfCollectionRelation(collections.id, collections.merchantId),
    cardPayments: cardPaymentsOfCollection(collections.id, collections.merchantId),
  };
  return relations;
}

/** A collection of the merchant by reference (or id) with its relations, as it is (not expired). */
export async function findDetail(
  exec: Executor,
  merchantId: string,
  reference: string,
): Promise<CollectionWithRelations | null> {
  const where = byReference(merchantId, reference);
  if (!where) return null;
  const { attempts, debits, cardPayments } = detailRelations();
  const [found] = await exec
    .select({ row: collections, attempts: attempts.sql, debits: debits.sql, cardPayments: cardPayments.sql })
    .from(collections)
    .where(where)
    .limit(1);
  if (!found) return null;
  return {
    row: found.row,
    attempts: attempts.decode(found.attempts),
    debits: debits.decode(found.debits),
    cardPayments: cardPayments.decode(found.cardPayments),
  };
}
