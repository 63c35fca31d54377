import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import { ACH_RETURN_CODES, RAILS } from '../transfers/transfers.rails.ts';
import { returnDeadlineOf, returnRule } from '../transfers/transfers.returns.ts';
import { INBOUND_STATES } from './inbound-transfers.machine.ts';
import type { inboundTransfers } from './inbound-transfers.table.ts';

/** A row of inbound_transfers, as services return it. */
export type InboundTransferRow = typeof inboundTransfers.$inferSelect;

export const OriginatorWire = z
  .object({
    name: z.string().meta({ description: "The originator's name." }),
    routing_number: z.string().meta({ description: "The originator's bank's ABA routing number." }),
    account_number: z
      .string()
      .meta({ description: 'The account number masked to its last 4 digits (••••6789).' }),
  })
  .meta({ id: 'InboundOriginator', description: 'The outside account an inbound transfer comes from.' });

/** A settled ACH entry's return window for the 2-banking-day codes (R01's frame); null otherwise. */
export function inboundReturnDeadline(row: InboundTransferRow): Date | null {
  const rule = returnRule('R01');
  return row.state === 'settled' && row.settledAt && rule ? returnDeadlineOf(rule, row.settledAt) : null;
}

export const InboundTransfer = defineObject<InboundTransferRow>()(
  'InboundTransfer',
  'inbound_transfer',
  "Money from outside: an originator's credit to the merchant (funds arrive) or debit of it (funds leave), over ACH, Same-Day ACH, RTP, FedNow or Fedwire (a wire).",
  {
    rail: field.enum(RAILS, 'The rail it arrived on: ach, same_day_ach, rtp, fednow or wire.'),
    direction: field.enum(
      ['credit', 'debit'],
      'credit: the originator sends the merchant money; debit: it pulls money (ACH only).',
    ),
    state: field.enum(
      INBOUND_STATES,
      'ACH and Same-Day ACH: pending → settled (at the FedACH window settlement) → returned (the merchant sends it back). RTP and FedNow: completed on arrival. Wire: completed when the Fedwire Funds Service processes it (at once during its operating day, else pending until its next opening).',
    ),
    amount: field.money(),
    currency: field.currency(),
    // GraphQL answers the originator as an object of its own (inbound-transfers.graphql.ts).
    originator: field.custom<InboundTransferRow>(OriginatorWire, (row) => ({
      name: row.originatorName,
      routing_number: row.originatorRoutingNumber,
      account_number: `••••${row.originatorAccountLast4}`,
    })),
    sec_code: field.nullableEnum(
      ['PPD', 'CCD', 'WEB'],
      'The ACH Standard Entry Class code; null on RTP and FedNow.',
    ),
    expected_arrival_at: field.nullableTimestamp(
      'ACH: the cut-off of the FedACH window the entry travels in; null on the instant rails.',
    ),
    expected_settlement_at: field.nullableTimestamp(
      'ACH: when the entry settles; a wire waiting for the Fedwire operating day: when it arrives; null on the instant rails.',
    ),
    settled_at: field.nullableTimestamp('When the ACH entry settled; null before.'),
    imad: field.nullableText(
      "Fedwire: the sending bank's Input Message Accountability Data (22 characters); null on other rails.",
    ),
    omad: field.nullableText(
      'Fedwire: the Output Message Accountability Data of its delivery (34 characters), set on arrival; null otherwise.',
    ),
    completed_at: field.nullableTimestamp('When the instant credit completed; null on ACH.'),
    returned_at: field.nullableTimestamp('When the merchant returned the entry; null otherwise.'),
    return_deadline: field.nullableTimestamp<InboundTransferRow>(
      'Settled ACH entries: the end of the return window of the most common codes (2 banking days after settlement); the 60-day unauthorized-debit codes R05, R07, R10, R11 stay open until 60 calendar days after it. Null otherwise.',
      (row) => inboundReturnDeadline(row),
    ),
    return_code: field.nullableEnum(
      ACH_RETURN_CODES,
      'The Nacha return code it was sent back with; null otherwise.',
    ),
    return_reason: field.nullableText('The title of the return code; null unless returned.'),
    reference: field.nullableText("The merchant's reference."),
    description: field.nullableText('The description given on create.'),
    metadata: field.metadata(),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const InboundTransferWire = InboundTransfer.wire;

export function inboundTransferResource(row: InboundTransferRow): Wire<typeof InboundTransferWire> {
  return InboundTransfer.render(row, { publicUrl: '' });
}
