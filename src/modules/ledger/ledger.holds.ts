import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { MerchantAccount, SystemAccount } from './ledger.accounts.ts';
import type { HoldEvent } from './ledger.machine.ts';
import { post } from './ledger.post.ts';
import {
  type Common,
  type EntryInput,
  holdKind,
  type PostingInput,
  type PostingRow,
  stepAt,
} from './ledger.rows.ts';
import { ledgerPostings } from './ledger.table.ts';

type HoldInput = Common & { amount: bigint; type?: string; allowNegative?: readonly MerchantAccount[] };

/** Reserves available funds (a hold): posted later to its destination, or voided back. */
export function placeHold(tx: Tx, input: HoldInput): Promise<PostingRow> {
  return post(tx, holdPosting(input));
}

/** A hold as a posting (pending: available → reserved), e.g. for a change's posting effect. */
export function holdPosting(input: HoldInput): PostingInput {
  return {
    ...input,
    type: input.type ?? 'hold',
    state: 'pending',
    entries: [
      { account: 'available', amount: -input.amount },
      { account: 'reserved', amount: input.amount },
    ],
  };
}

async function loadHold(exec: Executor, merchantId: string, holdId: string): Promise<PostingRow> {
  const [hold] = await exec
    .select()
    .from(ledgerPostings)
    .where(and(eq(ledgerPostings.id, holdId), eq(ledgerPostings.merchantId, merchantId)));
  const isHold = hold !== undefined && hold.reservedDelta > 0n && hold.availableDelta === -hold.reservedDelta;
  if (!hold || !isHold) {
    throw new SandbankError('resource_not_found', { message: `No hold ${holdId.slice(0, 60)}.` });
  }
  return hold;
}

async function settleHold(
  tx: Tx,
  merchantId: string,
  holdId: string,
  event: HoldEvent,
  at: Date,
  destination: EntryInput['account'],
): Promise<PostingRow> {
  const hold = await loadHold(tx, merchantId, holdId);
  // Of two writers settling it at once, one wins; the other gets invalid_state naming the state it found.
  await step(tx, stepAt(at), holdKind, hold, event);
  const amount = hold.reservedDelta;
  return post(tx, {
    merchantId,
    currency: hold.currency as CurrencyCode,
    type: event === 'post' ? 'hold_posted' : 'hold_voided',
    source: { type: hold.sourceType, id: hold.sourceId },
    relatedId: hold.id,
    at,
    entries: [
      { account: 'reserved', amount: -amount },
      { account: destination, amount },
    ],
  });
}

/** Sends a hold's reserved funds to their destination (a bank rail, the card network, FX). */
export function postHold(
  tx: Tx,
  merchantId: string,
  holdId: string,
  at: Date,
  to: SystemAccount,
): Promise<PostingRow> {
  return settleHold(tx, merchantId, holdId, 'post', at, to);
}

/** Releases a hold's reserved funds back to available. */
export function voidHold(tx: Tx, merchantId: string, holdId: string, at: Date): Promise<PostingRow> {
  return settleHold(tx, merchantId, holdId, 'void', at, 'available');
}
