import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import { timestamp, type Wire } from '../../kernel/wire-resources.ts';
import type { CardBrand } from '../cards/card-numbers.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import { cardPaymentMachine, refundMachine } from './card-payments.machine.ts';
import type { cardPayments, cardRefunds, cardTokens } from './card-payments.table.ts';

export type CardPaymentRow = typeof cardPayments.$inferSelect;
export type RefundRow = typeof cardRefunds.$inferSelect;
export type TokenRow = typeof cardTokens.$inferSelect;
/** A card payment with its refunds, oldest first: what its resource renders. */
type PaymentWithRefunds = CardPaymentRow & { refunds: RefundRow[] };

/** The path of a payment's 3-D Secure page, with the secret that opens it in the query string. */
export function challengePagePath(row: Pick<CardPaymentRow, 'id' | 'challengeSecret'>): string {
  return `/3ds/${row.id}?secret=${encodeURIComponent(row.challengeSecret)}`;
}

/** Where a payer completes a 3-D Secure challenge in a browser (`next_action.url`). */
export function challengePageUrl(
  publicUrl: string,
  row: Pick<CardPaymentRow, 'id' | 'challengeSecret'>,
): string {
  return `${publicUrl}${challengePagePath(row)}`;
}

/** The descriptions of a card's fields, the same on a payment and on a token. */
export const CARD_TEXTS = {
  brand: 'The card network.',
  last4: 'The last 4 digits of the card number.',
  exp_month: "The card's expiry month, 1-12.",
  exp_year: "The card's expiry year.",
} as const;

const CARD_BRANDS = ['visa', 'mastercard', 'amex'] as const satisfies readonly CardBrand[];
/** Refunds and tokens render no links: they need no public address. */
const NO_LINKS = { publicUrl: '' };

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

/** A token's card, without its number and CVC. */
export const TokenCardWire = z.object({
  brand: z.enum(CARD_BRANDS).meta({ description: CARD_TEXTS.brand }),
  last4: z.string().meta({ description: CARD_TEXTS.last4 }),
  exp_month: z.number().int().meta({ description: CARD_TEXTS.exp_month }),
  exp_year: z.number().int().meta({ description: CARD_TEXTS.exp_year }),
});

export const Token = defineObject<TokenRow>()(
  'CardToken',
  'token',
  'A single-use card token (15 minutes of clock time). Never carries the number.',
  {
    // GraphQL answers the card's fields on the token itself (card-payments.graphql.ts).
    card: field.custom<TokenRow>(TokenCardWire, (row) => ({
      brand: row.brand,
      last4: row.last4,
      exp_month: row.expMonth,
      exp_year: row.expYear,
    })),
    used: field.boolean<TokenRow>(
      'Whether a payment has used the token (it is single-use).',
      (row) => row.usedAt !== null,
    ),
    expires_at: field.timestamp('When it can no longer be used, clock time.'),
    created_at: field.createdAt(),
  },
);

export const Refund = defineObject<RefundRow>()(
  'Refund',
  'refund',
  'A refund of a captured card payment: pending → succeeded | failed.',
  {
    card_payment: field.ref<RefundRow>('card payment it refunds', (row) => row.cardPaymentId),
    state: field.enum(refundMachine.states, 'Where it stands: pending → succeeded or failed.'),
    amount: field.money('How much goes back to the card.'),
    currency: field.currency(),
    reason: field.nullableEnum(REFUND_REASONS, 'Why the merchant refunds, when it said.'),
    failure_reason: field.nullableText('Why the refund failed (state failed).'),
    created_at: field.timestamp('When it was asked for, clock time.'),
    updated_at: field.updatedAt(),
  },
);

/** The issuer's early fraud warning about a payment (magic card …5423): a notice, not a dispute. */
export const EarlyFraudWarningWire = z
  .object({
    fraud_type: z.literal('unauthorized_use_of_card').meta({
      description:
        'What the issuer reports: unauthorized_use_of_card, the cardholder says they did not make the payment.',
    }),
    actionable: z.boolean().meta({
      description:
        'Whether refunding it still heads off a dispute: true while it is captured, not refunded in full and not disputed.',
    }),
    created_at: timestamp.meta({ description: 'When the warning arrived, clock time.' }),
  })
  .meta({
    id: 'EarlyFraudWarning',
    description:
      'An early fraud warning from the issuer (the event card_payment.early_fraud_warning): a dispute may follow; it is not one.',
  });

/** Whether a refund can still head off a dispute the warning announces. */
export function earlyFraudWarningActionable(row: CardPaymentRow): boolean {
  return row.disputeId === null && (row.state === 'captured' || row.state === 'partially_refunded');
}

export const CARD_PAYMENT_REFUNDS = 'Its refunds, oldest first.';

export const CardPayment = defineObject<PaymentWithRefunds>()(
  'CardPayment',
  'card_payment',
  `A card payment (Visa, Mastercard or Amex): an authorization, captured at once or later, with its refunds. Never the card number. States: ${cardPaymentMachine.states.join(', ')}.`,
  {
    state: field.enum(
      cardPaymentMachine.states,
      'requires_action (3-D Secure) → authorized → captured → partially_refunded / refunded; declined, voided and expired are final.',
    ),
    amount: field.money(),
    amount_captured: field.money('How much has been captured (at most the amount).'),
    amount_refunded: field.money('How much has been refunded (refunds that succeeded or are pending).'),
    amount_disputed: field.money(
      'How much its disputes claim together (GET /v1/disputes?card_payment=): never more than captured and not refunded.',
    ),
    currency: field.currency(),
    capture: field.boolean<PaymentWithRefunds>(
      'Whether the authorization was captured on create (false: it waits to be captured or voided).',
      (row) => row.captureOnAuthorize,
    ),
    brand: field.enum(CARD_BRANDS, CARD_TEXTS.brand),
    last4: field.text(CARD_TEXTS.last4),
    exp_month: field.int(CARD_TEXTS.exp_month),
    exp_year: field.int(CARD_TEXTS.exp_year),
    three_d_secure: field.nullableEnum(
      ['required', 'succeeded', 'failed'],
      'The 3-D Secure challenge, when the card asked for one.',
    ),
    // GraphQL answers the page's address alone (threeDSecureUrl, card-payments.graphql.ts).
    next_action: field.custom<PaymentWithRefunds>(
      z
        .object({ type: z.literal('three_d_secure'), url: z.string().meta({ format: 'uri' }) })
        .nullable()
        .meta({ description: 'Where the payer completes 3-D Secure (state requires_action).' }),
      (row, rc) =>
        row.state === 'requires_action'
          ? { type: 'three_d_secure', url: challengePageUrl(rc.publicUrl, row) }
          : null,
    ),
    network_response_code: field.nullableText(
      'The ISO 8583 response code of the authorization ("00" approved, "51" insufficient funds, …).',
    ),
    network_response_message: field.nullableText<PaymentWithRefunds>(
      'What that response code means.',
      (row) => (row.networkResponseCode ? networkResponseDescription(row.networkResponseCode) : null),
    ),
    decline_code: field.nullableText('Why the card was declined (state declined), e.g. insufficient_funds.'),
    failure_message: field.nullableText('A sentence about the decline, for a person.'),
    refunds: field.custom<PaymentWithRefunds>(
      z.array(Refund.wire).meta({ description: CARD_PAYMENT_REFUNDS }),
      (row, rc) => row.refunds.map((refund) => Refund.render(refund, rc)),
    ),
    dispute: field.nullableText<PaymentWithRefunds>(
      'The id of its latest dispute (GET /v1/disputes/{id}, the dispute query), when the cardholder disputed it; a Visa or Mastercard payment may have more (GET /v1/disputes?card_payment=).',
      (row) => row.disputeId,
    ),
    // GraphQL answers the warning as an object of its own (card-payments.graphql.ts).
    early_fraud_warning: field.custom<PaymentWithRefunds>(EarlyFraudWarningWire.nullable(), (row) =>
      row.earlyFraudWarningAt
        ? {
            fraud_type: 'unauthorized_use_of_card',
            actionable: earlyFraudWarningActionable(row),
            created_at: row.earlyFraudWarningAt.toISOString(),
          }
        : null,
    ),
    reference: field.nullableText("The merchant's reference, as given on create."),
    description: field.nullableText('The description given on create.'),
    metadata: field.metadata(),
    collection: field.nullableText<PaymentWithRefunds>(
      'The id of the collection whose checkout made this payment, if one did.',
      (row) => row.collectionId,
    ),
    authorization_expires_at: field.nullableTimestamp(
      'While authorized and not captured: when the authorization lapses (state expired), clock time.',
    ),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const TokenWire = Token.wire;
export const RefundWire = Refund.wire;
export const CardPaymentWire = CardPayment.wire;

export function tokenResource(row: TokenRow): Wire<typeof TokenWire> {
  return Token.render(row, NO_LINKS);
}

export function refundResource(row: RefundRow): Wire<typeof RefundWire> {
  return Refund.render(row, NO_LINKS);
}

/** The API representation of a card payment: REST bodies and event payloads. Never the number. */
export function cardPaymentResource(
  row: CardPaymentRow,
  refunds: RefundRow[],
  publicUrl: string,
): Wire<typeof CardPaymentWire> {
  return CardPayment.render({ ...row, refunds }, { publicUrl });
}
