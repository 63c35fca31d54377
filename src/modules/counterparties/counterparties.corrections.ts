/**
 * The corrections a notification of change makes to a saved counterparty, and their reverting when
 * the merchant refuses the NOC: the only writes of the counterparties table outside its creation.
 * The nocs module decides what to correct (bank-accounts.corrections.ts names the fields); this
 * file knows where each field lives on the row and keeps what it replaced.
 */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { loadCounterparty } from './counterparties.service.ts';
import { type CounterpartyFields, type CounterpartyRow, counterparties } from './counterparties.table.ts';

/** Where each correctable field (wire name) lives on a saved counterparty (addenda information is the entry's own). */
const COLUMN_OF: Readonly<Record<string, keyof CounterpartyFields>> = {
  routing_number: 'routingNumber',
  account_number: 'accountNumber',
  account_type: 'accountType',
  name: 'name',
  individual_id: 'individualId',
};

/** An NOC's correction as the counterparty records it. */
export interface NewCorrection {
  code: string;
  reason: string;
  transferId: string;
  /** The corrected values by wire name, in the NOC's order (a transaction code too, which no column holds). */
  corrected: Record<string, string>;
  receivedAt: string;
}

/** Applies an NOC's correction to the saved counterparty (locked by the caller), keeping what it replaced. */
export async function applyCorrection(
  tx: Tx,
  counterparty: CounterpartyRow,
  correction: NewCorrection,
  now: Date,
): Promise<void> {
  const values: Partial<CounterpartyFields> = {};
  const previous: Partial<CounterpartyFields> = {};
  for (const [field, value] of Object.entries(correction.corrected)) {
    const column = COLUMN_OF[field];
    if (!column) continue;
    Object.assign(previous, { [column]: counterparty[column] });
    Object.assign(values, { [column]: value });
  }
  await tx
    .update(counterparties)
    .set({
      ...values,
      corrections: [
        ...counterparty.corrections,
        { ...correction, previous, refusedAt: null, refusalCode: null },
      ],
      updatedAt: now,
    })
    .where(eq(counterparties.id, counterparty.id));
}

/**
 * Undoes the correction a transfer's refused NOC made: each field the counterparty still holds as
 * corrected goes back, and the correction records its refusal.
 */
export async function revertCorrection(
  tx: Tx,
  merchantId: string,
  counterpartyId: string,
  transferId: string,
  refusal: { code: string; at: string },
  now: Date,
): Promise<void> {
  const counterparty = await loadCounterparty(tx, merchantId, counterpartyId, { lock: true });
  const values: Partial<CounterpartyFields> = {};
  const corrections = counterparty.corrections.map((correction) => {
    if (correction.transferId !== transferId || correction.refusedAt !== null) return correction;
    for (const [column, before] of Object.entries(correction.previous) as [
      keyof CounterpartyFields,
      string,
    ][]) {
      const field = Object.keys(COLUMN_OF).find((f) => COLUMN_OF[f] === column);
      if (field && counterparty[column] === correction.corrected[field])
        Object.assign(values, { [column]: before });
    }
    return { ...correction, refusedAt: refusal.at, refusalCode: refusal.code };
  });
  await tx
    .update(counterparties)
    .set({ ...values, corrections, updatedAt: now })
    .where(eq(counterparties.id, counterparty.id));
}
