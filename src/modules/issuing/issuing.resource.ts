import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import {
  idOf,
  timestamp,
  type Wire,
  wireCurrency,
  wireDecimal,
  wireMetadata,
  wireResource,
} from '../../kernel/wire-resources.ts';
import { networkResponseDescription } from '../cards/network-responses.ts';
import {
  DECLINE_REASONS,
  type DeclineReason,
  LIMIT_INTERVALS,
  type LimitInterval,
  mccName,
} from './issuing.controls.ts';
import { issuingAuthorizationMachine, virtualCardMachine } from './issuing.machine.ts';
import type { issuingAuthorizations, StoredControls, virtualCards } from './issuing.table.ts';

export type VirtualCardRow = typeof virtualCards.$inferSelect;
export type IssuingAuthorizationRow = typeof issuingAuthorizations.$inferSelect;

const usd = (minor: bigint) => WireDecimal.of(minor, 'USD');
const nullableText = (description: string) => z.string().nullable().meta({ description });
const limitInterval = z.enum(LIMIT_INTERVALS).meta({
  description:
    'The window a limit counts over: each authorization alone, or calendar windows in UTC on the clock (days from 00:00, weeks from Monday, months from the 1st, years from 1 January), or all time.',
});
const mcc = z.string().meta({ description: 'An ISO 18245 merchant category code (four digits).' });

export const SpendingLimitWire = z
  .object({
    amount: wireDecimal.meta({ description: 'The most spent in the interval, in USD.' }),
    interval: limitInterval,
  })
  .meta({ id: 'SpendingLimit', description: 'A spending limit in USD over an interval.' });

export const SpendingControlsWire = z
  .object({
    limits: z.array(SpendingLimitWire).meta({ description: 'Every limit applies.' }),
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

const virtualCardShape = {
  brand: z.enum(['visa', 'mastercard']).meta({ description: 'The card network.' }),
  last4: z.string().meta({ description: 'The last 4 digits of the card number.' }),
  exp_month: z.number().int().meta({ description: 'The expiry month (1-12).' }),
  exp_year: z.number().int().meta({ description: 'The expiry year (four digits).' }),
  cardholder_name: z.string(),
  currency: z.literal('USD').meta({ description: 'Virtual cards spend USD.' }),
  state: z.enum(virtualCardMachine.states).meta({
    description: 'active ⇄ frozen (a frozen card declines every authorization); canceled is final.',
  }),
  spending_controls: SpendingControlsWire,
  metadata: wireMetadata,
  created_at: timestamp,
  updated_at: timestamp,
};

export const VirtualCardWire = wireResource(
  'VirtualCard',
  'virtual_card',
  'A virtual card issued by the merchant, with its spending controls. Never its number or CVC (see VirtualCardDetails).',
  virtualCardShape,
);

export const VirtualCardDetailsWire = wireResource(
  'VirtualCardDetails',
  'virtual_card',
  'A virtual card with its full number and CVC: the answer of the create and of GET /virtual_cards/{id}/details only.',
  {
    ...virtualCardShape,
    number: z.string().meta({ description: 'The full card number (16 digits, Luhn-valid).' }),
    cvc: z.string().meta({ description: 'The card security code (3 digits).' }),
  },
);

export const IssuingMerchantWire = z
  .object({
    name: z.string().meta({ description: 'The name of the merchant that asked to charge the card.' }),
    mcc,
    category: nullableText("The merchant category's name; null when the reference does not name the code."),
    country: z.string().meta({ description: "The merchant's country (ISO 3166-1 alpha-2)." }),
  })
  .meta({ id: 'IssuingMerchant', description: 'The merchant an issuing authorization is for.' });

export const IssuingAuthorizationWire = wireResource(
  'IssuingAuthorization',
  'issuing_authorization',
  "A merchant's request to charge a virtual card: approved (its amount held on the available USD balance) or declined with a reason; an approved one is then captured, reversed or expires; refunds of a capture are counted on it.",
  {
    virtual_card: idOf('virtual card'),
    state: z.enum(issuingAuthorizationMachine.states).meta({
      description:
        'approved → captured, reversed (in full; a partial reversal stays approved) or expired (7 days without capture); declined is final.',
    }),
    approved: z.boolean().meta({ description: 'Whether the issuer approved it (every state but declined).' }),
    amount: wireDecimal.meta({ description: 'The authorized amount.' }),
    amount_reversed: wireDecimal,
    amount_captured: wireDecimal,
    amount_refunded: wireDecimal,
    currency: wireCurrency,
    merchant: IssuingMerchantWire,
    decline_reason: z
      .enum(DECLINE_REASONS)
      .nullable()
      .meta({ description: 'Why it was declined (state declined); null otherwise.' }),
    decline_interval: limitInterval.nullable().meta({
      description: 'The interval of the limit a spending_limit_exceeded decline tripped; null otherwise.',
    }),
    network_response_code: z.string().meta({ description: 'The ISO 8583 response code (00 when approved).' }),
    network_response_message: nullableText('What that response code means.'),
    card_payment: idOf(
      'card payment of this sandbox that asked for it (the closed loop); null otherwise',
    ).nullable(),
    reference: nullableText('The reference given when it was simulated.'),
    expires_at: timestamp.nullable().meta({
      description:
        'When an approval not captured by then expires; null for a decline, and in the closed loop (the card payment decides).',
    }),
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export function controlsResource(controls: StoredControls): Wire<typeof SpendingControlsWire> {
  return {
    limits: controls.limits.map((limit) => ({
      amount: usd(BigInt(limit.amount)),
      interval: limit.interval as LimitInterval,
    })),
    allowed_mccs: controls.allowed_mccs,
    blocked_mccs: controls.blocked_mccs,
  };
}

/** A virtual card as REST bodies and events show it: never its number or CVC. */
export function virtualCardResource(row: VirtualCardRow): Wire<typeof VirtualCardWire> {
  return {
    id: row.id,
    object: 'virtual_card',
    brand: row.brand as Wire<typeof VirtualCardWire>['brand'],
    last4: row.last4,
    exp_month: row.expMonth,
    exp_year: row.expYear,
    cardholder_name: row.cardholderName,
    currency: 'USD',
    state: row.state,
    spending_controls: controlsResource(row.spendingControls),
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The create response and GET …/details: the card with its full number and CVC. */
export function virtualCardDetailsResource(row: VirtualCardRow): Wire<typeof VirtualCardDetailsWire> {
  return { ...virtualCardResource(row), number: row.number, cvc: row.cvc };
}

export function issuingAuthorizationResource(
  row: IssuingAuthorizationRow,
): Wire<typeof IssuingAuthorizationWire> {
  const currency = row.currency as CurrencyCode;
  return {
    id: row.id,
    object: 'issuing_authorization',
    virtual_card: row.cardId,
    state: row.state,
    approved: row.state !== 'declined',
    amount: WireDecimal.of(row.amount, currency),
    amount_reversed: WireDecimal.of(row.amountReversed, currency),
    amount_captured: WireDecimal.of(row.amountCaptured, currency),
    amount_refunded: WireDecimal.of(row.amountRefunded, currency),
    currency,
    merchant: {
      name: row.merchantName,
      mcc: row.merchantMcc,
      category: mccName(row.merchantMcc),
      country: row.merchantCountry,
    },
    decline_reason: row.declineReason as DeclineReason | null,
    decline_interval: row.declineInterval as LimitInterval | null,
    network_response_code: row.networkResponseCode,
    network_response_message: networkResponseDescription(row.networkResponseCode),
    card_payment: row.cardPaymentId,
    reference: row.reference,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
