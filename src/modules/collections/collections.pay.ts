import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import type { Change } from '../../db/commit.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { validateBankAccount } from '../bank-accounts/bank-account.ts';
import { authorizeCard } from '../card-payments/card-payments.authorize.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import { loadPayment, throwIfDeclined } from '../card-payments/card-payments.rows.ts';
import type { CompleteChallengeInput } from '../card-payments/card-payments.schema.ts';
import { answerChallenge } from '../card-payments/card-payments.three-ds.ts';
import { validateCard } from '../cards/card-validation.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { createCollectionDebit } from '../transfers/transfers.create.ts';
import { getTransfer } from '../transfers/transfers.read.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import type { CollectionDebitStep } from '../transfers/transfers.steps.ts';
import { type AttemptRow, type CollectionRow, checkoutPath } from './collections.resource.ts';
import type { PayCollectionInput } from './collections.schema.ts';
import { loadCollection, lockCollection, transitionCollection } from './collections.service.ts';
import { paymentAttempts } from './collections.table.ts';

export interface NextAction {
  type: 'three_d_secure';
  url: string;
}

/**
 * A payment of a collection: a card payment (cp_) or an ACH debit of the payer's account (tr_).
 * `attempt` is a bank payment attempt (pay_) made before bank payments became ACH debits: only
 * an idempotent replay of such an old payment still carries one.
 */
export interface PayResult {
  collection: CollectionRow;
  cardPayment: CardPaymentRow | null;
  debit: TransferRow | null;
  attempt: AttemptRow | null;
  nextAction: NextAction | null;
}

/** The 3-D Secure step of a checkout: a page of the checkout, opened by the checkout's secret. */
function nextActionOf(
  ctx: ServiceContext,
  collection: CollectionRow,
  payment: CardPaymentRow,
): NextAction | null {
  return payment.state === 'requires_action' && payment.collectionId === collection.id
    ? { type: 'three_d_secure', url: `${ctx.publicUrl}${checkoutPath(collection, `/3ds/${payment.id}`)}` }
    : null;
}

/**
 * Pays a pending collection by card or US bank account: the code path of the hosted checkout and
 * of POST /v1/simulate/collections/{reference}/pay. A card makes a real card payment (captured at
 * once) linked to the collection, which succeeds when that payment is captured; a declined card is
 * a declined card payment, the collection stays pending, and the call ends in 402 card_declined
 * after the record commits. A bank account makes a standard ACH debit of the payer's account: the
 * collection is `processing` until the debit settles (succeeded) or comes back (failed).
 */
export async function payCollection(
  ctx: ServiceContext,
  reference: string,
  input: PayCollectionInput,
): Promise<PayResult> {
  const result = await inContextTx(ctx, async (tx): Promise<PayResult> => {
    if (input.method === 'bank_account') {
      const account = validateBankAccount(input.bank_account, 'bank_account');
      const collection = await payableCollection(tx, ctx, reference);
      const debit = await createCollectionDebit(tx, ctx, collection, account);
      return {
        collection: await transitionCollection(tx, ctx, collection, 'submit_bank_payment'),
        cardPayment: null,
        debit,
        attempt: null,
        nextAction: null,
      };
    }
    const card = validateCard(input.card);
    const collection = await payableCollection(tx, ctx, reference);
    let payment = await authorizeCard(tx, ctx, {
      amount: collection.amount,
      currency: collection.currency as CurrencyCode,
      card,
      capture: true,
      collectionId: collection.id,
      reference: collection.reference,
    });
    if (payment.state === 'requires_action' && input.three_d_secure)
      payment = await answerChallenge(tx, ctx, payment, input.three_d_secure);
    return {
      collection: await loadCollection(tx, ctx, collection.id),
      cardPayment: payment,
      debit: null,
      attempt: null,
      nextAction: nextActionOf(ctx, collection, payment),
    };
  });
  if (result.cardPayment) throwIfDeclined(result.cardPayment);
  return result;
}

/**
 * Ends the 3-D Secure challenge of a collection's card payment (the checkout page's Complete / Fail
 * buttons). The page passes the collection of its URL; a payment of another collection is not found.
 */
export async function completeChallenge(
  ctx: ServiceContext,
  paymentId: string,
  { outcome }: CompleteChallengeInput,
  collectionId: string,
): Promise<PayResult> {
  const result = await inContextTx(ctx, async (tx): Promise<PayResult> => {
    const current = await loadPayment(tx, ctx, paymentId);
    if (current.collectionId !== collectionId)
      throw new SandbankError('resource_not_found', {
        message: `No card payment ${paymentId.slice(0, 60)}.`,
      });
    await payableCollection(tx, ctx, collectionId);
    const payment = await answerChallenge(tx, ctx, current, outcome);
    return {
      collection: await loadCollection(tx, ctx, collectionId),
      cardPayment: payment,
      debit: null,
      attempt: null,
      nextAction: null,
    };
  });
  if (result.cardPayment) throwIfDeclined(result.cardPayment);
  return result;
}

/**
 * The capture reaction (modules/reactions.ts): a card payment of a collection was captured — at
 * once, or after its 3-D Secure challenge however it was answered — so the collection is paid, in
 * the capture's change (work in its transaction). A collection that stopped being payable
 * meanwhile (expired, canceled) refuses, and the capture is not written.
 */
export function succeedCollectionOnCapture(
  work: Change,
  ctx: ServiceContext,
  captured: CardPaymentRow,
): void {
  const collectionId = captured.collectionId;
  if (!collectionId) return;
  work.within(async (tx) => {
    const collection = await payableCollection(tx, ctx, collectionId);
    await transitionCollection(tx, ctx, collection, 'pay_by_card');
  });
}

/**
 * The collection-debit hook (modules/reactions.ts): the ACH debit of a collection's bank payment
 * settled (the collection succeeds) or came back (it fails with the return code, even after it
 * succeeded: the money went back to the payer).
 */
export async function followCollectionDebit(
  tx: Tx,
  ctx: ServiceContext,
  debit: TransferRow,
  step: CollectionDebitStep,
): Promise<void> {
  if (!debit.collectionId) return;
  const collection = await loadCollection(tx, ctx, debit.collectionId);
  if (step === 'settled') {
    await transitionCollection(tx, ctx, collection, 'settle_bank_payment');
    return;
  }
  await transitionCollection(
    tx,
    ctx,
    collection,
    collection.state === 'succeeded' ? 'return_bank_payment' : 'fail_bank_payment',
    {
      failureCode: debit.returnCode,
      failureMessage: `The bank returned the debit: ${debit.returnCode} ${debit.returnReason}.`,
    },
  );
}

/**
 * A collection that can be paid, locked: of two payments racing for one collection, the second
 * waits for the first to commit and then finds it no longer pending.
 */
async function payableCollection(tx: Tx, ctx: ServiceContext, reference: string): Promise<CollectionRow> {
  const collection = await lockCollection(tx, ctx, reference);
  if (collection.state !== 'pending') {
    throw new SandbankError('collection_not_payable', {
      message: `This collection is ${collection.state} and cannot be paid.`,
    });
  }
  return collection;
}

/** A payment of a collection and the collection as they are now (an idempotent replay of a payment). */
export async function loadPayResult(ctx: ServiceContext, paymentId: string): Promise<PayResult> {
  const exec = dbOf(ctx);
  if (hasPrefix(paymentId, 'cardPayment')) {
    const payment = await loadPayment(exec, ctx, paymentId);
    if (!payment.collectionId) throw new SandbankError('resource_not_found');
    const collection = await loadCollection(exec, ctx, payment.collectionId);
    return {
      collection,
      cardPayment: payment,
      debit: null,
      attempt: null,
      nextAction: nextActionOf(ctx, collection, payment),
    };
  }
  if (hasPrefix(paymentId, 'transfer')) {
    const debit = await getTransfer(ctx, paymentId);
    if (!debit.collectionId) throw new SandbankError('resource_not_found');
    return {
      collection: await loadCollection(exec, ctx, debit.collectionId),
      cardPayment: null,
      debit,
      attempt: null,
      nextAction: null,
    };
  }
  const [attempt] = await exec
    .select()
    .from(paymentAttempts)
    .where(and(eq(paymentAttempts.id, paymentId), eq(paymentAttempts.merchantId, ctx.merchant.id)));
  if (!attempt) throw new SandbankError('resource_not_found');
  return {
    collection: await loadCollection(exec, ctx, attempt.collectionId),
    cardPayment: null,
    debit: null,
    attempt,
    nextAction: null,
  };
}
