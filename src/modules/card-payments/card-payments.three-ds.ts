import { and, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { linkSecretMatches } from '../../kernel/secrets.ts';
import type { FinalDecision } from '../cards/network-responses.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { merchants } from '../merchants/merchants.table.ts';
import { afterAuthorization, decisionColumns } from './card-payments.authorize.ts';
import type { CardPaymentRow } from './card-payments.resource.ts';
import {
  type CardPaymentDetail,
  cardPaymentKind,
  loadPayment,
  stepCardPayment,
  throwIfDeclined,
  withRefunds,
} from './card-payments.rows.ts';
import type { CompleteChallengeInput } from './card-payments.schema.ts';
import { cardPayments } from './card-payments.table.ts';

/** The merchant of a card payment, for its 3-D Secure page (which has no API key: the link is the capability). */
export async function findChallengeMerchant(
  exec: Executor,
  paymentId: string,
  secret: string | undefined,
): Promise<{ id: string; name: string } | null> {
  if (!hasPrefix(paymentId, 'cardPayment') || paymentId.length > 64 || paymentId.includes('\u0000'))
    return null;
  const [row] = await exec
    .select({ id: merchants.id, name: merchants.name, secret: cardPayments.challengeSecret })
    .from(cardPayments)
    .innerJoin(merchants, eq(merchants.id, cardPayments.merchantId))
    .where(eq(cardPayments.id, paymentId))
    .limit(1);
  // Compared even when no row matched, so an id that exists takes no longer to refuse than one that does not.
  const matches = linkSecretMatches(secret, row?.secret ?? '');
  return row && matches ? { id: row.id, name: row.name } : null;
}

/**
 * A collection left `pending` (paid, expired, canceled): its card payments still waiting on a 3-D
 * Secure answer can no longer pay it, so they are declined (`checkout_closed`) instead of waiting
 * forever.
 */
export async function declineOpenChallenges(
  exec: Executor,
  ctx: ServiceContext,
  collectionId: string,
): Promise<void> {
  const open = await exec
    .select()
    .from(cardPayments)
    .where(and(eq(cardPayments.collectionId, collectionId), eq(cardPayments.state, 'requires_action')));
  for (const payment of open) {
    await step(exec, ctx, cardPaymentKind, payment, 'fail_3ds', {
      declineCode: 'checkout_closed',
      failureMessage: 'The checkout closed before 3-D Secure was completed.',
    });
  }
}

/** Answers a payment's 3-D Secure challenge in the caller's transaction. */
export async function answerChallenge(
  tx: Tx,
  ctx: ServiceContext,
  current: CardPaymentRow,
  outcome: 'succeed' | 'fail',
): Promise<CardPaymentRow> {
  const now = ctx.clock.now();
  const decision: FinalDecision =
    outcome === 'fail'
      ? {
          outcome: 'declined',
          declineCode: 'authentication_failed',
          networkResponseCode: null,
          message: '3-D Secure authentication failed.',
        }
      : current.challengeResult
        ? { outcome: 'declined', ...current.challengeResult }
        : { outcome: 'approved', networkResponseCode: '00' };
  const threeDSecure = outcome === 'succeed' ? 'succeeded' : 'failed';
  if (decision.outcome === 'declined')
    return stepCardPayment(tx, ctx, current, 'fail_3ds', { threeDSecure, ...decisionColumns(decision, now) });
  const authorized = await stepCardPayment(tx, ctx, current, 'complete_3ds', {
    threeDSecure,
    ...decisionColumns(decision, now),
  });
  return afterAuthorization(tx, ctx, authorized);
}

/** Ends a 3-D Secure challenge: authorized (and captured when asked) or declined (402). */
export async function completeCardPayment3ds(
  ctx: ServiceContext,
  id: string,
  { outcome }: CompleteChallengeInput,
): Promise<CardPaymentDetail> {
  const payment = await inContextTx(ctx, async (tx) =>
    answerChallenge(tx, ctx, await loadPayment(tx, ctx, id), outcome),
  );
  throwIfDeclined(payment);
  return withRefunds(dbOf(ctx), payment);
}
