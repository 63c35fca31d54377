import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import { paymentRequestMachine } from './payment-requests.machine.ts';
import { RFP_REJECT_REASONS } from './payment-requests.rules.ts';
import type { PaymentRequestRow } from './payment-requests.table.ts';

export type { PaymentRequestRow } from './payment-requests.table.ts';

const CounterpartyWire = z
  .object({
    name: z.string().meta({ description: "The account holder's name." }),
    routing_number: z.string().meta({ description: 'The ABA routing number (9 digits).' }),
    account_number: z
      .string()
      .meta({ description: 'The account number masked to its last 4 digits (••••6789).' }),
  })
  .meta({
    id: 'PaymentRequestCounterparty',
    description: 'The payer (outbound) or the requester (inbound).',
  });

export const PaymentRequest = defineObject<PaymentRequestRow>()(
  'PaymentRequest',
  'payment_request',
  'A request for payment on RTP or FedNow (ISO 20022 pain.013): outbound, the merchant asks a payer for money; inbound, a requester asks the merchant. pending → accepted → paid (by a credit transfer); pending → rejected; pending or accepted → expired or canceled.',
  {
    direction: field.enum(
      ['outbound', 'inbound'],
      'outbound: the merchant asks; inbound: the merchant is asked.',
    ),
    rail: field.enum(['rtp', 'fednow'], 'rtp or fednow.'),
    state: field.enum(paymentRequestMachine.states, 'Where it stands.'),
    amount: field.money('How much is requested.'),
    currency: field.currency(),
    // GraphQL answers it with scalar fields of its own (payment-requests.graphql.ts).
    counterparty: field.custom<PaymentRequestRow>(CounterpartyWire, (row) => ({
      name: row.counterpartyName,
      routing_number: row.routingNumber,
      account_number: `••••${row.accountLast4}`,
    })),
    expires_at: field.timestamp('When it lapses unpaid (clock time).'),
    responded_at: field.nullableTimestamp('When the payer answered (accepted or rejected); null before.'),
    rejection_code: field.nullableEnum(
      Object.keys(RFP_REJECT_REASONS) as (keyof typeof RFP_REJECT_REASONS)[],
      'The ISO 20022 reason of a rejection; null otherwise.',
    ),
    rejection_reason: field.nullableText('What the rejection code means; null otherwise.'),
    paid_at: field.nullableTimestamp('When the credit transfer paid it; null before.'),
    transfer: field.nullableText(
      'The credit transfer that paid it: an inbound transfer (itr_…) for an outbound request, a transfer (tr_…) for an inbound one; null before.',
      (row: PaymentRequestRow) => row.transferId,
    ),
    reference: field.nullableText("The merchant's reference."),
    description: field.nullableText('The description given on create.'),
    metadata: field.metadata(),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const PaymentRequestWire = PaymentRequest.wire;

/** The API representation of a request for payment: REST bodies and event payloads. */
export function paymentRequestResource(row: PaymentRequestRow): Wire<typeof PaymentRequestWire> {
  return PaymentRequest.render(row, { publicUrl: '' });
}
