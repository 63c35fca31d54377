import { eq, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRowsPrepared } from '../../db/client.ts';
import { insertRecordsSql } from '../../db/json-records.ts';
import { runTransaction } from '../../db/tx.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import type { ServiceContext } from '../context.ts';
import { createdEventsSql, fanOutSql, recordEvents } from '../events/events.service.ts';
import { creditPendingFundsMany, creditPendingFundsSql, type PendingCredit } from '../ledger/ledger.funds.ts';
import { ledgerPostings } from '../ledger/ledger.table.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';
import { capturedAtOnceEvents } from './card-payments.rows.ts';
import { cardPayments } from './card-payments.table.ts';

export interface WriterStats {
  /** Batches written by the single statement. */
  statements: number;
  /** Batches written by one transaction on the general path. */
  transactions: number;
  /** Batches whose transaction failed, so each payment was retried alone. */
  retriedAlone: number;
}

interface Pending {
  ctx: ServiceContext;
  row: CardPaymentRow;
  resolve: (row: CardPaymentRow) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 128;
const MAX_IN_FLIGHT = 2;

/**
 * Group commit for card payments captured at once (as collections.writer.ts does for collections).
 * Payments that arrive together are written by one statement: their rows, both events of each, the
 * ledger credits (each account locked and updated once for the batch) with their
 * `balance_transaction.created` events and release jobs, and the webhook fan-out. A single statement
 * is its own transaction, so all of it commits or none does, and every caller's promise settles only
 * after it has committed.
 *
 * When the statement cannot be used — a ledger account the batch touches does not exist yet (a
 * merchant's first payment in a currency), or it failed — the batch is written in one transaction
 * by the general path, which creates accounts; when that fails too, each payment is retried in a
 * transaction of its own, so one bad payment fails only itself.
 *
 * Only payments that belong to no collection come here (the API's own): capture hooks act on
 * payments made through a collection, which are written in their collection's transaction.
 */
class CapturedPaymentWriter {
  /** How many batches took each path (for tests and diagnosis). */
  readonly stats: WriterStats = { statements: 0, transactions: 0, retriedAlone: 0 };
  #queue: Pending[] = [];
  #scheduled = false;
  /** Batches being written now (at most MAX_IN_FLIGHT). */
  #inFlight = 0;

  constructor(private readonly db: Db) {}

  write(ctx: ServiceContext, row: CardPaymentRow): Promise<CardPaymentRow> {
    if (row.collectionId !== null)
      throw new Error('a collection payment is written in its collection’s transaction');
    return new Promise((resolve, reject) => {
      this.#queue.push({ ctx, row, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  /**
   * Starts a batch of what has queued, if a slot is free; while batches commit, new payments queue
   * up and go together in the next one. Two in flight, not one: while one statement runs, the next
   * is sent and waits for the account rows at its `FOR UPDATE` (both take them in id order, so they
   * cannot deadlock); more would only queue on those rows.
   */
  #flush(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      this.#inFlight += 1;
      void this.#write(batch).finally(() => {
        this.#inFlight -= 1;
        if (this.#queue.length > 0) this.#schedule();
      });
    }
  }

  /** Writes a batch and settles its callers' promises; never rejects. */
  async #write(batch: Pending[]): Promise<void> {
    let statement: ReturnType<typeof batchStatement> | null = null;
    try {
      statement = batchStatement(batch);
    } catch {
      // A payment the statement cannot render: the general path finds which one.
    }
    const written =
      statement !== null &&
      (await queryRowsPrepared(this.db, statement.query).then(
        (announced) => announced.length === statement.eventCount, // none when an account is missing
        // The statement failed, or its answer was lost after it committed (a dropped connection).
        // It is atomic, so one of its new postings tells which: writing the batch again would fail
        // on the ids and answer errors for payments that exist.
        () => this.#postingExists(statement.firstPostingId).catch(() => false),
      ));
    if (written) {
      this.stats.statements += 1;
      for (const pending of batch) pending.resolve(pending.row);
      return;
    }
    try {
      await this.#writeInTransaction(batch);
      this.stats.transactions += 1;
      for (const pending of batch) pending.resolve(pending.row);
    } catch {
      this.stats.retriedAlone += 1;
      for (const pending of batch) {
        await this.#writeInTransaction([pending]).then(
          () => pending.resolve(pending.row),
          (error: unknown) => pending.reject(error),
        );
      }
    }
  }

  async #postingExists(postingId: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: ledgerPostings.id })
      .from(ledgerPostings)
      .where(eq(ledgerPostings.id, postingId));
    return rows.length > 0;
  }

  /** The general path: the same writes through the ledger's transactional postings. */
  #writeInTransaction(batch: Pending[]): Promise<void> {
    return runTransaction(this.db, async (tx) => {
      await tx.insert(cardPayments).values(batch.map((pending) => pending.row));
      await recordEvents(
        tx,
        batch.flatMap(({ ctx, row }) => capturedAtOnceEvents(ctx, row)),
      );
      await creditPendingFundsMany(
        tx,
        batch.map(({ row }) => pendingCredit(row)),
      );
    });
  }
}

/**
 * The common case, one round trip: the batch as one statement. It writes nothing when an account
 * it needs is missing (then it announces no event). Its text is the same for every batch (the rows
 * travel as parameters), so it is prepared once per connection.
 */
function batchStatement(batch: Pending[]): { query: SQL; eventCount: number; firstPostingId: string } {
  const ledger = creditPendingFundsSql(batch.map(({ row }) => pendingCredit(row)));
  const events = batch.flatMap(({ ctx, row }, i) => [...capturedAtOnceEvents(ctx, row), ledger.events[i]!]);
  const createdEvents = createdEventsSql(events, ledger.ready);
  const query = sql`WITH ${ledger.ctes}, new_card_payments AS (
    ${insertRecordsSql(
      cardPayments,
      batch.map(({ row }) => row),
      ledger.ready,
    )}
  ), ${createdEvents.cte}, ${fanOutSql(sql.raw('created_events'))}`;
  return { query, eventCount: events.length, firstPostingId: ledger.postings[0]!.id };
}

/** A captured payment's credit: into the merchant's pending balance, from the card network. */
function pendingCredit(row: CardPaymentRow): PendingCredit {
  return {
    merchantId: row.merchantId,
    amount: row.amountCaptured,
    currency: row.currency as CurrencyCode,
    source: { type: 'card_payment', id: row.id },
    type: 'card_payment',
    from: 'card_network',
    at: row.createdAt,
  };
}

const writers = new WeakMap<Db, CapturedPaymentWriter>();

function writerOf(db: Db): CapturedPaymentWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new CapturedPaymentWriter(db);
    writers.set(db, writer);
  }
  return writer;
}

/**
 * Writes a payment captured at once (every column set: it is the row as stored), with its events
 * and ledger credit, through the group commit.
 */
export function writeCapturedPayment(ctx: ServiceContext, row: CardPaymentRow): Promise<CardPaymentRow> {
  return writerOf(ctx.db).write(ctx, row);
}

/** The database's group-commit counters (a live object). */
export function capturedPaymentWriterStats(db: Db): Readonly<WriterStats> {
  return writerOf(db).stats;
}
