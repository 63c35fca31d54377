/**
 * What the transfers module lets others hook into without importing them (the hooks are registered
 * in modules/reactions.ts): a collection's debit settling or coming back, an ACH entry settling,
 * and the magic account that makes the RDFI send a notification of change.
 */
import type { Tx } from '../../db/client.ts';
import type { ServiceContext } from '../context.ts';
import type { TransferRow } from './transfers.resource.ts';

/** What happened to a collection's debit; the collections module listens (modules/reactions.ts). */
export type CollectionDebitStep = 'settled' | 'returned';
type CollectionDebitHook = (
  tx: Tx,
  ctx: ServiceContext,
  debit: TransferRow,
  step: CollectionDebitStep,
) => Promise<void>;
const collectionDebitHooks: CollectionDebitHook[] = [];

export function onCollectionDebit(hook: CollectionDebitHook): void {
  if (!collectionDebitHooks.includes(hook)) collectionDebitHooks.push(hook);
}

export async function afterCollectionDebit(
  tx: Tx,
  ctx: ServiceContext,
  row: TransferRow,
  step: CollectionDebitStep,
) {
  if (row.collectionId === null) return;
  for (const hook of collectionDebitHooks) await hook(tx, ctx, row, step);
}

/** An ACH entry settled; the nocs module listens (a magic account's NOC follows). */
type AchSettledHook = (tx: Tx, ctx: ServiceContext, row: TransferRow) => Promise<void>;
const achSettledHooks: AchSettledHook[] = [];

export function onAchSettled(hook: AchSettledHook): void {
  if (!achSettledHooks.includes(hook)) achSettledHooks.push(hook);
}

export async function afterAchSettled(tx: Tx, ctx: ServiceContext, row: TransferRow): Promise<void> {
  for (const hook of achSettledHooks) await hook(tx, ctx, row);
}

/** The NOC code an account number makes the RDFI send after settlement, or null (the nocs module's magic account). */
type MagicNocCode = (accountNumber: string) => string | null;
let magicNocCodeOf: MagicNocCode = () => null;

export function registerMagicNocCode(find: MagicNocCode): void {
  magicNocCodeOf = find;
}

/** The NOC a new ACH transfer to this account number will get after settlement, or null. */
export function magicNocCode(accountNumber: string): string | null {
  return magicNocCodeOf(accountNumber);
}
