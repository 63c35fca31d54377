import { z } from 'zod';
import { defineObject, type FieldDecl, field } from '../../kernel/declare.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import { type Wire, wireDecimal } from '../../kernel/wire-resources.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import { DECLINE_REASONS, LIMIT_INTERVALS, type LimitInterval, mccName } from './issuing.controls.ts';
import { issuingAuthorizationMachine, virtualCardMachine } from './issuing.machine.ts';
import type { issuingAuthorizations, StoredControls, virtualCards } from './issuing.table.ts';

export type VirtualCardRow = typeof virtualCards.$inferSelect;
export type IssuingAuthorizationRow = typeof issuingAuthorizations.$inferSelect;

/** Cards and authorizations render no links: they need no public address. */
const NO_LINKS = { publicUrl: '' };

export const LIMIT_INTERVAL_TEXT =
  'The window a limit counts over: each authorization alone, or calendar windows in UTC on the clock (days from 00:00, weeks from Monday, months from the 1st, years from 1 January), or all time.';
const limitInterval = z.enum(LIMIT_INTERVALS).meta({ description: LIMIT_INTERVAL_TEXT });
const mcc = z.string().meta({ description: 'An ISO 18245 merchant category code (four digits).' });

export const SpendingLimitWire = z
  .object({
    amount: wireDecimal.meta({ description: 'The most the card may spend in the interval, in USD.' }),
    interval: limitInterval,
  })
  .meta({ id: 'SpendingLimit', description: 'A cap on what a card may spend in an interval, in USD.' });

export const SpendingControlsWire = z
  .object({
    limits: z.array(SpendingLimitWire).meta({ description: 'Spending limits; every one applies.' }),
    allowed_mccs: z
      .array(mcc)
      .nullable()
      .meta({ description: 'Only these merchant category codes are allowed; null allows every code.' }),
    blocked_mccs: z.array(mcc).meta({ description: 'These merchant category codes are declined.' }),
  })
  .meta({
    id: 'SpendingControls',
    description: "A virtual card's spending controls: limits, and the merchant categories it may pay.",
  });

export function controlsResource(controls: StoredControls): Wire<typeof SpendingControlsWire> {
  return {
    limits: controls.limits.map((limit) => ({
      amount: WireDecimal.of(BigInt(limit.amount), 'USD'),
      interval: limit.interval as LimitInterval,
    })),
    allowed_mccs: controls.allowed_mccs,
    blocked_mccs: controls.blocked_mccs,
  };
}

/** A card's metadata: the merchant's, given on create and replaced by an update. */
const cardMetadata = (name: string): FieldDecl<VirtualCardRow> => ({
  ...field.metadata<VirtualCardRow>()(name),
  wire: z.record(z.string(), z.string()).meta({
    description: "The merchant's metadata: string keys and values (given on create, replaced by an update).",
  }),
});

/** A virtual card's fields, the same on the card and on its details. */
const cardFields = {
  brand: field.enum<VirtualCardRow, ['visa', 'mastercard']>(['visa', 'mastercard'], 'The card network.'),
  last4: field.text<VirtualCardRow>('The last 4 digits of the card number.'),
  exp_month: field.int<VirtualCardRow>('The expiry month (1-12).'),
  exp_year: field.int<VirtualCardRow>('The expiry year (four digits).'),
  cardholder_name: field.text<VirtualCardRow>('The name on the card.'),
  currency: field.custom<VirtualCardRow>(
    z.literal('USD').meta({ description: 'Virtual cards spend USD.' }),
    () => 'USD',
  ),
  state: field.enum<VirtualCardRow, typeof virtualCardMachine.states>(
    virtualCardMachine.states,
    'active ⇄ frozen (a frozen card declines every authorization); canceled is final.',
  ),
  // GraphQL answers the controls as an object type of its own (issuing.graphql.ts).
  spending_controls: field.custom<VirtualCardRow>(SpendingControlsWire, (row) =>
    controlsResource(row.spendingControls),
  ),
  metadata: cardMetadata,
  created_at: field.createdAt<VirtualCardRow>(),
  updated_at: field.updatedAt<VirtualCardRow>(),
};

export const VirtualCard = defineObject<VirtualCardRow>()(
  'VirtualCard',
  'virtual_card',
  'A virtual card the merchant issued, with its spending controls. Never its number or CVC (see VirtualCardDetails).',
  cardFields,
);

export const VirtualCardDetails = defineObject<VirtualCardRow>()(
  'VirtualCardDetails',
  'virtual_card',
  'A virtual card with its full number and CVC: only the answer of its create and of its details (GET /v1/virtual_cards/{id}/details, virtualCardDetails).',
  {
    ...cardFields,
    number: field.text<VirtualCardRow>('The full card number (16 digits, Luhn-valid).'),
    cvc: field.text<VirtualCardRow>('The card verification code (3 digits).'),
  },
);

export const IssuingMerchantWire = z
  .object({
    name: z.string().meta({ description: 'The name of the merchant that asked to charge the card.' }),
    mcc,
    category: z
      .string()
      .nullable()
      .meta({ description: "The merchant category's name; null when the reference does not name the code." }),
    country: z.string().meta({ description: "The merchant's country (ISO 3166-1 alpha-2)." }),
  })
  .meta({ id: 'IssuingMerchant', description: 'The merchant an issuing authorization is for.' });

export const IssuingAuthorization = defineObject<IssuingAuthorizationRow>()(
  'IssuingAuthorization',
  'issuing_authorization',
  `A merchant's request to charge a virtual card: approved (its amount held on the available USD balance) or declined with a reason; an approved one is then captured, reversed or expires; refunds of a capture are counted on it. States: ${issuingAuthorizationMachine.states.join(', ')}.`,
  {
    virtual_card: field.ref<IssuingAuthorizationRow>('virtual card it was made on', (row) => row.cardId),
    state: field.enum<IssuingAuthorizationRow, typeof issuingAuthorizationMachine.states>(
      issuingAuthorizationMachine.states,
      'approved → captured, reversed (in full; a partial reversal stays approved) or expired (7 days without capture); declined is final.',
    ),
    approved: field.boolean<IssuingAuthorizationRow>(
      'Whether the issuer approved it (every state but declined).',
      (row) => row.state !== 'declined',
    ),
    amount: field.money<IssuingAuthorizationRow>('The authorized amount.'),
    amount_reversed: field.money<IssuingAuthorizationRow>(
      'How much of the hold was released back to the card.',
    ),
    amount_captured: field.money<IssuingAuthorizationRow>('How much was captured (spent).'),
    amount_refunded: field.money<IssuingAuthorizationRow>(
      'How much of the captured amount the merchant refunded.',
    ),
    currency: field.currency<IssuingAuthorizationRow>(),
    // GraphQL answers the merchant's fields on the authorization itself (issuing.graphql.ts).
    merchant: field.custom<IssuingAuthorizationRow>(IssuingMerchantWire, (row) => ({
      name: row.merchantName,
      mcc: row.merchantMcc,
      category: mccName(row.merchantMcc),
      country: row.merchantCountry,
    })),
    decline_reason: field.nullableEnum<IssuingAuthorizationRow, typeof DECLINE_REASONS>(
      DECLINE_REASONS,
      'Why it was declined (state declined); null otherwise.',
    ),
    decline_interval: field.nullableEnum<IssuingAuthorizationRow, typeof LIMIT_INTERVALS>(
      LIMIT_INTERVALS,
      'The interval of the limit a spending_limit_exceeded decline tripped; null otherwise.',
    ),
    network_response_code: field.text<IssuingAuthorizationRow>(
      'The ISO 8583 response code the issuer answered with ("00" approved).',
    ),
    network_response_message: field.nullableText<IssuingAuthorizationRow>(
      'What that response code means.',
      (row) => networkResponseDescription(row.networkResponseCode),
    ),
    card_payment: field.nullableText<IssuingAuthorizationRow>(
      "The id of the card payment on this sandbox that asked for it (the closed loop: a payment with one of the merchant's virtual cards); null otherwise.",
      (row) => row.cardPaymentId,
    ),
    reference: field.nullableText<IssuingAuthorizationRow>('The reference given when it was simulated.'),
    expires_at: field.nullableTimestamp<IssuingAuthorizationRow>(
      'When an approval not captured by then expires, clock time; null for a decline, and in the closed loop (the card payment decides).',
    ),
    created_at: field.createdAt<IssuingAuthorizationRow>(),
    updated_at: field.updatedAt<IssuingAuthorizationRow>(),
  },
);

export const VirtualCardWire = VirtualCard.wire;
export const VirtualCardDetailsWire = VirtualCardDetails.wire;
export const IssuingAuthorizationWire = IssuingAuthorization.wire;

/** A virtual card as REST bodies and events show it: never its number or CVC. */
export function virtualCardResource(row: VirtualCardRow): Wire<typeof VirtualCardWire> {
  return VirtualCard.render(row, NO_LINKS);
}

export function issuingAuthorizationResource(
  row: IssuingAuthorizationRow,
): Wire<typeof IssuingAuthorizationWire> {
  return IssuingAuthorization.render(row, NO_LINKS);
}
