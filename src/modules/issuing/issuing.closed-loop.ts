import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { secretsEqual } from '../../kernel/secrets.ts';
import { clockInTransaction } from '../clock/clock.service.ts';
import type { ServiceContext } from '../context.ts';
import { lockLedgers } from '../ledger/ledger.accounts.ts';
import { merchants } from '../merchants/merchants.table.ts';
import { authorizeOnCard } from './issuing.authorize.ts';
import { ISSUING_BINS } from './issuing.cards.ts';
import { DECLINES } from './issuing.controls.ts';
import type { VirtualCardRow } from './issuing.resource.ts';
import { virtualCardKind } from './issuing.rows.ts';
import { captureOn, outstanding, refundOn, reverseOn } from './issuing.settle.ts';
import { issuingAuthorizations, virtualCards } from './issuing.table.ts';

// The closed loop: a card payment of this sandbox made with a card this sandbox issued. The
// acquiring side (card-payments) asks here instead of the magic-number network; the issuing
// merchant's controls, balance and clock decide, and the answer becomes the card payment's. The
// acquiring merchant presents the sandbox's merchant category code (`ctx.config.merchantMcc`).

/** Whether a card number comes from this sandbox's issuing BINs. */
export function isIssuedNumber(number: string): boolean {
  return number.length === 16 && Object.values(ISSUING_BINS).some((bin) => number.startsWith(bin));
}

/** The issuing merchant's context inside the acquirer's transaction: its own clock and name. */
async function issuerContext(tx: Tx, acquirer: ServiceContext, merchantId: string): Promise<ServiceContext> {
  const [merchant] = await tx
    .select({ id: merchants.id, name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  if (!merchant) throw new Error(`card issuer ${merchantId} not found`);
  return { ...acquirer, tx, clock: await clockInTransaction(tx, merchantId), merchant };
}

export interface AcquirerRequest {
  number: string;
  cvc: string;
  expMonth: number;
  expYear: number;
  amount: bigint;
  cardPaymentId: string;
}

export interface IssuerAnswer {
  decision:
    | { outcome: 'approved'; networkResponseCode: '00' }
    | { outcome: 'declined'; declineCode: string; networkResponseCode: string; message: string };
  authorizationId: string | null;
}

const declined = (declineCode: string, iso: string, message: string): IssuerAnswer => ({
  decision: { outcome: 'declined', declineCode, networkResponseCode: iso, message },
  authorizationId: null,
});

/** Wrong security codes in a row after which the issuer freezes the card, as issuers lock cards. */
export const MAX_CVC_FAILURES = 3;

const byAmount = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Counts a wrong security code against the card; the one that reaches MAX_CVC_FAILURES freezes an
 * active card (`virtual_card.frozen`, on the issuer's clock) until its merchant unfreezes it, so the
 * codes cannot be guessed one payment after another.
 */
async function countCvcFailure(tx: Tx, acquirer: ServiceContext, card: VirtualCardRow): Promise<void> {
  const failures = card.cvcFailures + 1;
  if (failures < MAX_CVC_FAILURES || card.state !== 'active') {
    await tx.update(virtualCards).set({ cvcFailures: failures }).where(eq(virtualCards.id, card.id));
    return;
  }
  const issuer = await issuerContext(tx, acquirer, card.merchantId);
  await step(tx, issuer, virtualCardKind, card, 'freeze', { cvcFailures: failures });
}

/**
 * Authorizes a card payment of `acquirer` on the virtual card with this number, whoever issued it.
 * A number no card has is declined `invalid_account` (14); a wrong CVC `incorrect_cvc` (N7) and a
 * wrong expiry `expired_card` (54), before the issuer's controls are asked. Wrong CVCs in a row
 * freeze the card (countCvcFailure); a right one starts the count again.
 */
export async function authorizeFromAcquirer(
  tx: Tx,
  acquirer: ServiceContext,
  request: AcquirerRequest,
): Promise<IssuerAnswer> {
  const [card] = await tx
    .select()
    .from(virtualCards)
    .where(eq(virtualCards.number, request.number))
    .for('update');
  if (!card) return declined('invalid_account', '14', 'No card with this number was issued.');
  if (!secretsEqual(card.cvc, request.cvc)) {
    await countCvcFailure(tx, acquirer, card);
    return declined('incorrect_cvc', 'N7', "The card's security code is incorrect.");
  }
  if (card.cvcFailures > 0)
    await tx.update(virtualCards).set({ cvcFailures: 0 }).where(eq(virtualCards.id, card.id));
  if (card.expMonth !== request.expMonth || card.expYear !== request.expYear)
    return declined('expired_card', '54', "The card's expiry date is incorrect.");
  await lockLedgers(tx, [acquirer.merchant.id, card.merchantId]);
  const issuer = await issuerContext(tx, acquirer, card.merchantId);
  const auth = await authorizeOnCard({ db: issuer.db, tx }, issuer, card, {
    amount: request.amount,
    merchant: { name: acquirer.merchant.name, mcc: acquirer.config.merchantMcc, country: 'US' },
    cardPaymentId: request.cardPaymentId,
  });
  if (auth.state === 'approved')
    return { decision: { outcome: 'approved', networkResponseCode: '00' }, authorizationId: auth.id };
  // The acquirer learns the reason's code, as over a card network, not the issuer's controls (the
  // interval that tripped stays on the issuer's authorization).
  const reason = auth.declineReason as keyof typeof DECLINES;
  return {
    decision: {
      outcome: 'declined',
      declineCode: DECLINES[reason].acquirerCode,
      networkResponseCode: DECLINES[reason].iso,
      message: `The card issuer declined the payment: ${reason.replaceAll('_', ' ')}.`,
    },
    authorizationId: auth.id,
  };
}

/**
 * What the acquiring side did next, mirrored on the issuing side: a capture clears the
 * authorization for the captured amount; a void or an expiry reverses it; a refund refunds it.
 */
export async function followAcquirer(
  tx: Tx,
  acquirer: ServiceContext,
  authorizationId: string,
  step: { kind: 'capture'; amount: bigint } | { kind: 'reverse' } | { kind: 'refund'; amount: bigint },
): Promise<void> {
  const [row] = await tx
    .select()
    .from(issuingAuthorizations)
    .where(eq(issuingAuthorizations.id, authorizationId))
    .for('update');
  if (!row) return;
  await lockLedgers(tx, [acquirer.merchant.id, row.merchantId]);
  const issuer = await issuerContext(tx, acquirer, row.merchantId);
  if (step.kind === 'capture' && row.state === 'approved') await captureOn(tx, issuer, row, step.amount);
  else if (step.kind === 'reverse' && row.state === 'approved')
    await reverseOn(tx, issuer, row, outstanding(row));
  else if (step.kind === 'refund' && row.state === 'captured') {
    // The acquirer caps its refunds at what it captured, which is what the issuer cleared; the cap
    // here keeps the issuer from ever crediting back more than it paid.
    const left = row.amountCaptured - row.amountRefunded;
    if (left > 0n) await refundOn(tx, issuer, row, [step.amount, left].sort(byAmount)[0] as bigint);
  }
}
