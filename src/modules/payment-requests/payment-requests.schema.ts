import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';
import { counterpartyIdSchema } from '../counterparties/counterparties.schema.ts';
import { counterpartyAccount } from '../transfers/transfers.schema.ts';
import type { PaymentRequestState } from './payment-requests.machine.ts';
import { RFP_REJECT_REASONS, type RfpRejectReason } from './payment-requests.rules.ts';

export const RFP_RAILS = ['rtp', 'fednow'] as const;
export type RfpRail = (typeof RFP_RAILS)[number];

const rail = z.enum(RFP_RAILS).describe('rtp or fednow: the instant rails that carry requests for payment.');
const expiresAt = z
  .string()
  .datetime({ offset: true })
  .optional()
  .describe(
    "When the request lapses unpaid (ISO 8601): after the merchant's clock now, at most 90 days on; default 7 days on.",
  );

export const createPaymentRequestSchema = z.strictObject({
  rail,
  amount: wireAmount,
  currency: currencyField(['USD'], 'requests for payment are in USD (ISO 4217 code, any case)').describe(
    'USD.',
  ),
  payer: z
    .union([counterpartyIdSchema, counterpartyAccount])
    .describe("Who is asked to pay: an inline account, or a saved counterparty's id (cpty_…)."),
  expires_at: expiresAt,
  ...labelFields,
});
export type CreatePaymentRequestInput = z.output<typeof createPaymentRequestSchema>;
export const createPaymentRequestFieldCodes: FieldCodes = { ...moneyFieldCodes, payer: 'parameter_invalid' };

export const simulatePaymentRequestSchema = z.strictObject({
  rail,
  amount: wireAmount,
  currency: currencyField(['USD'], 'requests for payment are in USD (ISO 4217 code, any case)').describe(
    'USD.',
  ),
  requester: counterpartyAccount.describe(
    'Who asks the merchant for money, and the account an accepted request is paid to.',
  ),
  expires_at: expiresAt,
  ...labelFields,
});
export type SimulatePaymentRequestInput = z.output<typeof simulatePaymentRequestSchema>;
export const simulatePaymentRequestFieldCodes: FieldCodes = {
  ...moneyFieldCodes,
  requester: 'parameter_invalid',
};

export const rejectPaymentRequestSchema = z.strictObject({
  reason: z
    .enum(Object.keys(RFP_REJECT_REASONS) as [RfpRejectReason, ...RfpRejectReason[]])
    .optional()
    .describe('The ISO 20022 reason of the refusal (default NARR: declined by the payer).'),
});
export type RejectPaymentRequestInput = z.output<typeof rejectPaymentRequestSchema>;

export const listPaymentRequestsQuery = {
  direction: z
    .enum(['outbound', 'inbound'])
    .optional()
    .describe('Only requests the merchant sent, or received.'),
  state: z.string().max(32).optional().describe('Only requests in this state.'),
};

export const RfpRejectReasonValues = describedValues(
  'PaymentRequestRejectReason',
  'Why a payer refused a request for payment (ISO 20022).',
  RFP_REJECT_REASONS as Record<RfpRejectReason, string>,
);

export const PaymentRequestStateValues = describedValues(
  'PaymentRequestState',
  'Where a request for payment stands.',
  {
    pending: 'Sent; the payer has not answered.',
    accepted: 'The payer accepted it (pain.014); its credit transfer follows.',
    rejected: 'The payer refused it, with a reason (final).',
    paid: "The payer's credit transfer paid it (final).",
    expired: 'It lapsed unpaid at its expiry (final).',
    canceled: 'The requester withdrew it before it was paid (final).',
  } satisfies Record<PaymentRequestState, string>,
);

export const PaymentRequestDirectionValues = describedValues('PaymentRequestDirection', 'Who asks whom.', {
  outbound: 'The merchant asks a payer for money.',
  inbound: 'A requester asks the merchant for money.',
});

export const PaymentRequestRailValues = describedValues(
  'PaymentRequestRail',
  'The rail of a request for payment.',
  {
    rtp: 'RTP (The Clearing House): request for payment, then an RTP credit transfer.',
    fednow: 'FedNow (the Federal Reserve): request for payment, then a FedNow credit transfer.',
  },
);
