import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { updateIfState } from '../../db/compare-and-set.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { AccountKind, MerchantAccount } from './ledger.accounts.ts';
import { post } from './ledger.post.ts';
import { emitPostingEvent, type PostingRow } from './ledger.rows.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

/**
 * Postings that may be undone. Holds are voided instead, and the postings that settle a hold are
 * final (reversing one would put money back in `reserved` with no hold behind it).
 */
const REVERSIBLE = new Set(['top_up', 'collection_payment', 'funds_available']);

/** Undoes a posted posting, once, with a new one whose entries are its negation. */
export async function reversePosting(
  tx: Tx,
  merchantId: string,
  postingId: string,
  at: Date,
  options: { allowNegative?: readonly MerchantAccount[] } = {},
): Promise<PostingRow> {
  const [original] = await tx
    .select()
    .from(ledgerPostings)
    .where(and(eq(ledgerPostings.id, postingId), eq(ledgerPostings.merchantId, merchantId)));
  if (!original)
    throw new SandbankError('resource_not_found', {
      message: `No balance transaction ${postingId.slice(0, 60)}.`,
    });
  if (original.state !== 'posted' || !REVERSIBLE.has(original.type)) {
    throw new SandbankError('invalid_state', {
      message: `Only a posted ${[...REVERSIBLE].join(', ')} balance transaction can be reversed, once; this one is a ${original.state} ${original.type}.`,
    });
  }
  // posted → reversed with compare-and-set: of two racing reversals, one wins.
  const marked = await updateIfState(tx, ledgerPostings, original.id, 'posted', {
    state: 'reversed',
    updatedAt: at,
  });
  if (!marked) {
    throw new SandbankError('invalid_state', { message: 'This balance transaction has just been reversed.' });
  }
  await emitPostingEvent(tx, { ...original, state: 'reversed', updatedAt: at }, 'reversed');
  const entries = await tx
    .select({ amount: ledgerEntries.amount, kind: ledgerAccounts.kind })
    .from(ledgerEntries)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerEntries.accountId))
    .where(eq(ledgerEntries.postingId, original.id));
  return post(tx, {
    merchantId,
    currency: original.currency as CurrencyCode,
    type: 'reversal',
    source: { type: original.sourceType, id: original.sourceId },
    relatedId: original.id,
    at,
    entries: entries.map((entry) => ({ account: entry.kind as AccountKind, amount: -entry.amount })),
    ...(options.allowNegative ? { allowNegative: options.allowNegative } : {}),
  });
}
