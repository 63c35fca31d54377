import type { Db } from '../../db/client.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvents } from '../events/events.service.ts';
import { creditPendingFundsMany } from '../ledger/ledger.funds.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';
import { afterCaptureHooks, capturedAtOnceEvents } from './card-payments.service.ts';
import { cardPayments } from './card-payments.table.ts';

interface Pending {
  ctx: ServiceContext;
  row: CardPaymentRow;
  resolve: (row: CardPaymentRow) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 128;

/**
 * Group commit for card payments captured at once (as collections.writer.ts does for collections).
 * Payments that arrive together are written in one transaction: their rows, both events of each,
 * the ledger credits (each account's balance updated once for the batch, so a merchant's hot
 * `pending` row is locked once per batch rather than once per payment) and the release jobs.
 * Every caller's promise settles only after that transaction has committed. When a batch fails,
 * its payments are retried one transaction each, so one bad payment fails only itself.
 */
class CapturedPaymentWriter {
  #queue: Pending[] = [];
  #scheduled = false;
  #writing = false;

  constructor(private readonly db: Db) {}

  write(ctx: ServiceContext, row: CardPaymentRow): Promise<CardPaymentRow> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ ctx, row, resolve, reject });
      if (!this.#scheduled && !this.#writing) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  /**
   * One batch at a time: while a batch commits, new payments queue up and go together in the next
   * one. (Batches in parallel would only queue on the same merchant's account rows.)
   */
  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        try {
          await this.#commit(batch);
          for (const pending of batch) pending.resolve(pending.row);
        } catch {
          for (const pending of batch) {
            await this.#commit([pending]).then(
              () => pending.resolve(pending.row),
              (error: unknown) => pending.reject(error),
            );
          }
        }
      }
    } finally {
      this.#writing = false;
    }
  }

  #commit(batch: Pending[]): Promise<void> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx
        .insert(cardPayments)
        .values(batch.map((pending) => pending.row))
        .returning();
      // The rows as stored (every column, nulls included) are what the callers and events see.
      const byId = new Map(inserted.map((row) => [row.id, row]));
      for (const pending of batch) pending.row = byId.get(pending.row.id) ?? pending.row;
      await recordEvents(
        tx,
        batch.flatMap(({ ctx, row }) => capturedAtOnceEvents(ctx, row)),
      );
      await creditPendingFundsMany(
        tx,
        batch.map(({ row }) => ({
          merchantId: row.merchantId,
          amount: row.amountCaptured,
          currency: row.currency as CurrencyCode,
          source: { type: 'card_payment', id: row.id },
          type: 'card_payment',
          from: 'card_network' as const,
          at: row.createdAt,
        })),
      );
      for (const { ctx, row } of batch) await afterCaptureHooks(tx, ctx, row);
    });
  }
}

const writers = new WeakMap<Db, CapturedPaymentWriter>();

/** Writes a payment captured at once, with its events and ledger credit, through the group commit. */
export function writeCapturedPayment(ctx: ServiceContext, row: CardPaymentRow): Promise<CardPaymentRow> {
  let writer = writers.get(ctx.db);
  if (!writer) {
    writer = new CapturedPaymentWriter(ctx.db);
    writers.set(ctx.db, writer);
  }
  return writer.write(ctx, row);
}
