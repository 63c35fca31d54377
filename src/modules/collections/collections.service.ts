import { eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import type { EventInput } from '../../db/outbox.ts';
import { objectEvent } from '../../db/outbox.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { type StatefulKind, step } from '../../db/step.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix, newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { linkSecretMatches, newLinkSecret } from '../../kernel/secrets.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { declineOpenChallenges } from '../card-payments/card-payments.three-ds.ts';
import { dbOf, inContextTx, type MerchantRef, type ServiceContext } from '../context.ts';
import { merchants } from '../merchants/merchants.table.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { byReference, type CollectionWithRelations, findDetail } from './collections.detail.ts';
import { type CollectionEvent, type CollectionState, collectionMachine } from './collections.machine.ts';
import { type AttemptRow, type CollectionRow, collectionResource } from './collections.resource.ts';
import type { CreateCollectionInput, UpdateCollectionInput } from './collections.schema.ts';
import { collections, paymentAttempts } from './collections.table.ts';

/** 0.01 to 999,999.99 USD. */
export const COLLECTION_MAX_MINOR = 99_999_999n;
export const DEFAULT_EXPIRES_IN_SECONDS = 86_400;

/** Due work that expires a pending collection at its `expires_at`. */
export const COLLECTION_EXPIRY_JOB = 'collection.expire';

export interface CollectionDetail extends CollectionRow {
  /** Bank-account payment attempts made before bank payments became ACH debits, newest first. */
  attempts: AttemptRow[];
  /** ACH debits of the payer's account (bank-account payments), newest first. */
  debits: TransferRow[];
  /** Card payments made through the checkout, newest first. */
  cardPayments: CardPaymentDetail[];
}

export async function createCollection(
  ctx: ServiceContext,
  input: CreateCollectionInput,
): Promise<CollectionRow> {
  const amount = parseAmount(input.amount, input.currency, { max: COLLECTION_MAX_MINOR });
  const now = ctx.clock.now();
  const id = newId('collection');
  const row: CollectionRow = {
    id,
    merchantId: ctx.merchant.id,
    reference: input.reference ?? id,
    amount,
    currency: input.currency,
    email: input.email ?? null,
    description: input.description ?? null,
    redirectUrl: input.redirect_url ?? null,
    metadata: input.metadata ?? {},
    state: collectionMachine.initial,
    failureCode: null,
    failureMessage: null,
    expiresAt: addSeconds(now, input.expires_in ?? DEFAULT_EXPIRES_IN_SECONDS),
    checkoutSecret: newLinkSecret(),
    createdAt: now,
    updatedAt: now,
  };
  await commit(
    ctx,
    change()
      .insert(collections, row, {
        target: [collections.merchantId, collections.reference],
        refusal: () =>
          new SandbankError('duplicate_reference', {
            param: 'reference',
            message: `A collection with reference "${row.reference}" already exists.`,
          }),
      })
      .event(collectionEvent(row, ctx.publicUrl, 'collection.created'))
      .job(
        jobValues({
          merchantId: row.merchantId,
          kind: COLLECTION_EXPIRY_JOB,
          objectId: row.id,
          dueAt: row.expiresAt,
          createdAt: row.createdAt,
        }),
      ),
  );
  return row;
}

/** A collection's event (by default `collection.<state>`, on arriving in it), with the collection as it is now. */
function collectionEvent(
  row: CollectionRow,
  publicUrl: string,
  type = `collection.${row.state}`,
): EventInput {
  return objectEvent(row, type, collectionResource(row, publicUrl));
}

/** Collections as stateful objects, for step(). */
const collectionKind: StatefulKind<CollectionRow, CollectionState, CollectionEvent> = {
  machine: collectionMachine,
  table: collections,
  event: collectionEvent,
};

/** `lock`: FOR UPDATE (in a transaction: of two writers, the second waits and reads the first's row). */
async function findCollection(
  exec: Executor,
  merchantId: string,
  reference: string,
  lock = false,
): Promise<CollectionRow | null> {
  const where = byReference(merchantId, reference);
  if (!where) return null;
  const query = exec.select().from(collections).where(where).limit(1);
  const [row] = await (lock ? query.for('update') : query);
  return row ?? null;
}

function notFound(reference: string): SandbankError {
  return new SandbankError('resource_not_found', {
    message: `No collection with reference "${reference.slice(0, 100)}".`,
  });
}

/**
 * Moves a collection along one transition (step()); leaving `pending` also declines the open 3-D
 * Secure challenges of its checkout. Throws invalid_state when the collection is not in a state
 * that allows `event`.
 */
export async function transitionCollection(
  exec: Executor,
  ctx: ServiceContext,
  row: CollectionRow,
  event: CollectionEvent,
  values: Pick<Partial<CollectionRow>, 'failureCode' | 'failureMessage'> = {},
): Promise<CollectionRow> {
  const updated = await step(exec, ctx, collectionKind, row, event, values);
  if (row.state === 'pending') await declineOpenChallenges(exec, ctx, row.id);
  return updated;
}

/**
 * A pending collection whose checkout has expired moves to `expired` when it is next touched.
 * (The scheduler of the money-core issue will also expire it on time without a touch.)
 */
export async function expireIfDue(
  exec: Executor,
  ctx: ServiceContext,
  row: CollectionRow,
): Promise<CollectionRow> {
  if (!isDue(ctx, row)) return row;
  try {
    return await transitionCollection(exec, ctx, row, 'expire');
  } catch (error) {
    if (error instanceof SandbankError && error.code === 'invalid_state') {
      const [current] = await exec.select().from(collections).where(eq(collections.id, row.id));
      if (current) return current;
    }
    throw error;
  }
}

/** Whether a collection is pending past its expiry (it expires when next touched). */
function isDue(ctx: ServiceContext, row: CollectionRow): boolean {
  return row.state === 'pending' && row.expiresAt.getTime() <= ctx.clock.now().getTime();
}

/** The scheduled expiry: a collection still pending at its expires_at becomes expired. */
export async function expireCollectionJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const row = await findCollection(ctx.tx, ctx.merchant.id, job.objectId);
  if (row) await expireIfDue(ctx.tx, ctx, row);
}

/** Loads a collection of the merchant by reference (or id), expiring it first when due. */
export async function loadCollection(
  exec: Executor,
  ctx: ServiceContext,
  reference: string,
): Promise<CollectionRow> {
  const row = await findCollection(exec, ctx.merchant.id, reference);
  if (!row) throw notFound(reference);
  return expireIfDue(exec, ctx, row);
}

/** loadCollection, the row locked for the rest of the transaction. */
export async function lockCollection(tx: Tx, ctx: ServiceContext, reference: string): Promise<CollectionRow> {
  const row = await findCollection(tx, ctx.merchant.id, reference, true);
  if (!row) throw notFound(reference);
  return expireIfDue(tx, ctx, row);
}

/**
 * A collection with its attempts, debits and card payments: one statement, outside a transaction
 * (one statement sees one snapshot). One due to expire is expired first, in a transaction, and read again.
 */
export async function getCollection(ctx: ServiceContext, reference: string): Promise<CollectionDetail> {
  const found = await findDetail(dbOf(ctx), ctx.merchant.id, reference);
  if (!found) throw notFound(reference);
  if (!isDue(ctx, found.row)) return detailOf(found);
  return inContextTx(ctx, async (tx) => {
    await expireIfDue(tx, ctx, found.row);
    const expired = await findDetail(tx, ctx.merchant.id, found.row.id);
    if (!expired) throw notFound(reference);
    return detailOf(expired);
  });
}

function detailOf({ row, attempts, debits, cardPayments }: CollectionWithRelations): CollectionDetail {
  return { ...row, attempts, debits, cardPayments };
}

/**
 * The merchant's collections among `ids` (by id only, never by reference), each expired first when
 * due (GraphQL's nodes(ids:)). Their attempts, debits and card payments are read when asked for.
 */
export async function collectionsByIds(ctx: ServiceContext, ids: string[]): Promise<CollectionRow[]> {
  const exec = dbOf(ctx);
  const rows = await merchantRowsByIds<CollectionRow>(ctx, collections, ids);
  const current: CollectionRow[] = [];
  for (const row of rows) current.push(await expireIfDue(exec, ctx, row));
  return current;
}

/** The merchant's payment attempts among `ids` (GraphQL's nodes(ids:)). */
export function paymentAttemptsByIds(ctx: ServiceContext, ids: string[]): Promise<AttemptRow[]> {
  return merchantRowsByIds<AttemptRow>(ctx, paymentAttempts, ids);
}

export function listCollections(ctx: ServiceContext, query: ListQuery): Promise<Page<CollectionRow>> {
  return merchantPage(ctx, collections, query);
}

export async function cancelCollection(ctx: ServiceContext, reference: string): Promise<CollectionRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await loadCollection(tx, ctx, reference);
    return transitionCollection(tx, ctx, row, 'cancel');
  });
}

/**
 * Merges metadata keys into a collection (a key set to "" is removed) and sets or clears its
 * description, in any state. Not a change of state: no event, as a payment provider's metadata
 * update sends none.
 */
export async function updateCollection(
  ctx: ServiceContext,
  reference: string,
  input: UpdateCollectionInput,
): Promise<CollectionRow> {
  return inContextTx(ctx, async (tx) => {
    const row = await lockCollection(tx, ctx, reference);
    const metadata = { ...row.metadata };
    for (const [key, value] of Object.entries(input.metadata ?? {})) {
      if (value === '') delete metadata[key];
      else metadata[key] = value;
    }
    if (Object.keys(metadata).length > 50)
      throw new SandbankError('parameter_invalid', {
        param: 'metadata',
        message: 'metadata has at most 50 keys (the collection would have more).',
      });
    const [updated] = await tx
      .update(collections)
      .set({
        metadata,
        ...(input.description !== undefined ? { description: input.description } : {}),
        updatedAt: ctx.clock.now(),
      })
      .where(eq(collections.id, row.id))
      .returning();
    if (!updated) throw notFound(reference);
    return updated;
  });
}

/**
 * The merchant behind a checkout link: the hosted page is public (its link is the payer's
 * capability) and acts for the collection's merchant. The link names the collection and carries its
 * secret; an unknown id and a missing or wrong secret are the same `null` (no way to tell an id exists).
 */
export async function findCheckoutMerchant(
  db: Executor,
  collectionId: string,
  secret: string | undefined,
): Promise<MerchantRef | null> {
  if (!hasPrefix(collectionId, 'collection') || collectionId.length > 64 || collectionId.includes('\u0000'))
    return null;
  const [row] = await db
    .select({ id: merchants.id, name: merchants.name, secret: collections.checkoutSecret })
    .from(collections)
    .innerJoin(merchants, eq(merchants.id, collections.merchantId))
    .where(eq(collections.id, collectionId))
    .limit(1);
  // Compared even when no row matched, so an id that exists takes no longer to refuse than one that does not.
  const matches = linkSecretMatches(secret, row?.secret ?? '');
  return row && matches ? { id: row.id, name: row.name } : null;
}
