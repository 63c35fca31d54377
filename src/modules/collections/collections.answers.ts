import { z } from 'zod';
import type { Wire } from '../../kernel/wire-resources.ts';
import { CardPaymentWire, cardPaymentResource } from '../card-payments/card-payments.resource.ts';
import { TransferWire, transferResource } from '../transfers/transfers.resource.ts';
import type { PayResult } from './collections.pay.ts';
import {
  attemptResource,
  CollectionWire,
  collectionResource,
  PaymentAttemptWire,
} from './collections.resource.ts';
import type { CollectionDetail } from './collections.service.ts';

/**
 * The REST answers that are a collection with more than its own fields: with its payments (GET),
 * and as a payment left it (the headless payment, a 3-D Secure answer).
 */

/** A payment of a collection: a card payment, an ACH debit of the payer, or an older attempt. */
export const CollectionPaymentWire = z.union([CardPaymentWire, TransferWire, PaymentAttemptWire]).meta({
  id: 'CollectionPayment',
  description:
    'A payment of a collection, by its object: a card_payment, a transfer (the ACH debit of a bank payment), or a payment_attempt made before those took that role.',
});

export const CollectionWithPaymentsWire = CollectionWire.extend({
  payments: z
    .array(CollectionPaymentWire)
    .meta({ description: "The collection's payments, newest first, whatever their kind." }),
  payment_attempts: z.array(PaymentAttemptWire).meta({
    description:
      'Kept for older clients: the payment attempts among the payments (none for a collection paid since card payments and ACH debits took that role).',
  }),
}).meta({ id: 'CollectionWithPayments', description: 'A collection with its payments.' });

export const CollectionPayResultWire = CollectionWire.extend({
  payment: z
    .union([CollectionPaymentWire, z.null()])
    .meta({ description: 'The payment this call made (or, replayed, made then); null if none.' }),
  payment_attempt: z.union([PaymentAttemptWire, z.null()]).meta({
    description:
      'Kept for older clients: the payment when it is a payment_attempt (a replay of an older payment); null otherwise.',
  }),
  next_action: z
    .object({
      type: z.literal('three_d_secure'),
      url: z
        .string()
        .meta({ format: 'uri', description: "The checkout's 3-D Secure page for this payment." }),
    })
    .nullable()
    .meta({
      description: 'What the payer must do next: a 3-D Secure challenge to complete; null otherwise.',
    }),
}).meta({
  id: 'CollectionPayResult',
  description: 'A collection as a payment left it, with that payment and what the payer must do next.',
});

export function payResultResource(
  result: PayResult,
  publicUrl: string,
): Wire<typeof CollectionPayResultWire> {
  return {
    ...collectionResource(result.collection, publicUrl),
    payment: result.cardPayment
      ? cardPaymentResource(result.cardPayment, [], publicUrl)
      : result.debit
        ? transferResource(result.debit)
        : result.attempt
          ? attemptResource(result.attempt)
          : null,
    // Kept (additive contract): null now that card payments are card payments and bank
    // payments ACH debits (a replay of an older bank payment still shows its attempt).
    payment_attempt: result.attempt ? attemptResource(result.attempt) : null,
    next_action: result.nextAction,
  };
}

/** A collection's payments, newest first: its card payments, its ACH debits and any older bank attempts. */
export function collectionPayments(
  detail: CollectionDetail,
  publicUrl: string,
): Wire<typeof CollectionPaymentWire>[] {
  const payments: { at: Date; id: string; body: Wire<typeof CollectionPaymentWire> }[] = [
    ...detail.cardPayments.map((p) => ({
      at: p.createdAt,
      id: p.id,
      body: cardPaymentResource(p, p.refunds, publicUrl),
    })),
    ...detail.debits.map((d) => ({ at: d.createdAt, id: d.id, body: transferResource(d) })),
    ...detail.attempts.map((a) => ({ at: a.createdAt, id: a.id, body: attemptResource(a) })),
  ];
  payments.sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1));
  return payments.map((p) => p.body);
}

/** A collection with its payments (GET /v1/collections/{reference}). */
export function collectionWithPaymentsResource(
  detail: CollectionDetail,
  publicUrl: string,
): Wire<typeof CollectionWithPaymentsWire> {
  return {
    ...collectionResource(detail, publicUrl),
    payments: collectionPayments(detail, publicUrl),
    // Kept (additive contract): bank attempts made before bank payments became ACH debits.
    payment_attempts: detail.attempts.map(attemptResource),
  };
}
