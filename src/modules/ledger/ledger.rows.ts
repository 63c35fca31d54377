import { type EventInput, objectEvent } from '../../db/outbox.ts';
import type { StatefulKind, StepContext } from '../../db/step.ts';
import { FixedClock } from '../../kernel/clock.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { AccountKind, MerchantAccount } from './ledger.accounts.ts';
import {
  type HoldEvent,
  holdMachine,
  type PostingEvent,
  type PostingState,
  postingMachine,
} from './ledger.machine.ts';
import { balanceTransactionResource } from './ledger.resource.ts';
import { ledgerPostings } from './ledger.table.ts';

export type PostingRow = typeof ledgerPostings.$inferSelect;

export interface EntryInput {
  account: AccountKind;
  /** Signed minor units: positive raises the account's balance. */
  amount: bigint;
}

export interface PostingInput {
  merchantId: string;
  currency: CurrencyCode;
  type: string;
  source: { type: string; id: string };
  description?: string | null;
  at: Date;
  entries: EntryInput[];
  /** 'pending' opens a hold; everything else is posted at once. */
  state?: 'posted' | 'pending';
  relatedId?: string | null;
  /**
   * Merchant accounts this posting may take below zero. By default none may: a posting that would
   * overdraw one fails with 422 insufficient_balance and writes nothing.
   */
  allowNegative?: readonly MerchantAccount[];
}

export type Common = Pick<PostingInput, 'merchantId' | 'currency' | 'source' | 'at' | 'description'>;

export function assertBalanced(entries: EntryInput[]): void {
  if (entries.length < 2) throw new Error('a posting needs at least two entries');
  if (entries.some((entry) => entry.amount === 0n)) throw new Error('a ledger entry cannot be zero');
  const sum = entries.reduce((total, entry) => total + entry.amount, 0n);
  if (sum !== 0n) throw new Error(`posting does not balance: entries sum to ${sum}`);
}

function deltaOf(entries: EntryInput[], account: MerchantAccount): bigint {
  return entries
    .filter((entry) => entry.account === account)
    .reduce((total, entry) => total + entry.amount, 0n);
}

/** A posting's row: its effect on the merchant's three balances and its source. */
export function postingValues(input: PostingInput, id: string): typeof ledgerPostings.$inferInsert {
  return {
    id,
    merchantId: input.merchantId,
    currency: input.currency,
    type: input.type,
    state: input.state ?? 'posted',
    sourceType: input.source.type,
    sourceId: input.source.id,
    description: input.description ?? null,
    relatedId: input.relatedId ?? null,
    availableDelta: deltaOf(input.entries, 'available'),
    pendingDelta: deltaOf(input.entries, 'pending'),
    reservedDelta: deltaOf(input.entries, 'reserved'),
    createdAt: input.at,
    updatedAt: input.at,
  };
}

/**
 * Balance transactions are objects with states too (pending → posted | voided; posted → reversed):
 * their creation and every state change is an event, in the posting's transaction (house rule: the outbox, docs/internals/house-rules.md).
 */
export function postingEvent(posting: PostingRow, change: string): EventInput {
  return objectEvent(posting, `balance_transaction.${change}`, balanceTransactionResource(posting));
}

/** A posting's event on arriving in a state: `balance_transaction.<state>`. */
const postingStateEvent = (posting: PostingRow): EventInput => postingEvent(posting, posting.state);

/** Holds as stateful objects, for step(): pending → posted | voided. */
export const holdKind: StatefulKind<PostingRow, PostingState, HoldEvent> = {
  machine: holdMachine,
  table: ledgerPostings,
  event: postingStateEvent,
};

/** Posted balance transactions as stateful objects, for step(): posted → reversed. */
export const postingKind: StatefulKind<PostingRow, PostingState, PostingEvent> = {
  machine: postingMachine,
  table: ledgerPostings,
  event: postingStateEvent,
};

/**
 * What step() reads to move a posting at `at`: the ledger's functions are given the moment of the
 * change, and a balance transaction's event links to no page.
 */
export function stepAt(at: Date): StepContext {
  return { clock: new FixedClock(at), publicUrl: '' };
}
