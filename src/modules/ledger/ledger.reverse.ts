import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { isSandbankError, SandbankError } from '../../kernel/errors.ts';
import { canTransition } from '../../kernel/state-machine.ts';
import type { AccountKind, MerchantAccount } from './ledger.accounts.ts';
import { post } from './ledger.post.ts';
import { type PostingRow, postingKind, stepAt } from './ledger.rows.ts';
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
  if (!canTransition(postingKind.machine, original.state, 'reverse') || !REVERSIBLE.has(original.type)) {
    throw new SandbankError('invalid_state', {
      message: `Only a posted ${[...REVERSIBLE].join(', ')} balance transaction can be reversed, once; this one is a ${original.state} ${original.type}.`,
    });
  }
  // posted → reversed with compare-and-set: of two racing reversals, one wins.
  await step(tx, stepAt(at), postingKind, original, 'reverse').catch((error: unknown) => {
    throw isSandbankError(error) && error.code === 'invalid_state'
      ? new SandbankError('invalid_state', { message: 'This balance transaction has just been reversed.' })
      : error;
  });
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
