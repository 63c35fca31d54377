import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import {
  timestamp,
  type Wire,
  wireCurrency,
  wireDecimal,
  wireMetadata,
  wireResource,
} from '../../kernel/wire-resources.ts';
import { ACH_RETURN_CODES, RAILS, type Rail } from '../transfers/transfers.rails.ts';
import { returnDeadlineOf, returnRule } from '../transfers/transfers.returns.ts';
import { INBOUND_STATES, type InboundState } from './inbound-transfers.machine.ts';
import type { inboundTransfers } from './inbound-transfers.table.ts';

/** A row of inbound_transfers, as services return it. */
export type InboundTransferRow = typeof inboundTransfers.$inferSelect;

const iso = (at: Date | null) => at?.toISOString() ?? null;
const nullableText = (description: string) => z.string().nullable().meta({ description });
const nullableTimestamp = (description: string) => timestamp.nullable().meta({ description });

export const OriginatorWire = z
  .object({
    name: z.string().meta({ description: "The originator's name." }),
    routing_number: z.string().meta({ description: "The originator's bank's ABA routing number." }),
    account_number: z
      .string()
      .meta({ description: 'The account number masked to its last 4 digits (••••6789).' }),
  })
  .meta({ id: 'InboundOriginator', description: 'The outside account an inbound transfer comes from.' });

export const InboundTransferWire = wireResource(
  'InboundTransfer',
  'inbound_transfer',
  "Money from outside: an originator's credit to the merchant (funds arrive) or debit of it (funds leave), over ACH, Same-Day ACH, RTP or FedNow.",
  {
    rail: z.enum(RAILS).meta({ description: 'ach, same_day_ach, rtp or fednow.' }),
    direction: z.enum(['credit', 'debit']).meta({
      description: 'credit: the originator sends the merchant money; debit: it pulls money (ACH only).',
    }),
    state: z.enum(INBOUND_STATES as [InboundState, ...InboundState[]]).meta({
      description:
        'ACH and Same-Day ACH: pending → settled (at the FedACH window settlement) → returned (the merchant sends it back). RTP and FedNow: completed on arrival.',
    }),
    amount: wireDecimal,
    currency: wireCurrency,
    originator: OriginatorWire,
    sec_code: z
      .enum(['PPD', 'CCD', 'WEB'])
      .nullable()
      .meta({ description: 'The ACH Standard Entry Class code; null on RTP and FedNow.' }),
    expected_arrival_at: nullableTimestamp(
      'ACH: the cut-off of the FedACH window the entry travels in; null on the instant rails.',
    ),
    expected_settlement_at: nullableTimestamp('ACH: when the entry settles; null on the instant rails.'),
    settled_at: nullableTimestamp('When the ACH entry settled; null before.'),
    completed_at: nullableTimestamp('When the instant credit completed; null on ACH.'),
    returned_at: nullableTimestamp('When the merchant returned the entry; null otherwise.'),
    return_deadline: nullableTimestamp(
      'Settled ACH entries: the end of the return window of the most common codes (2 banking days after settlement); the 60-day unauthorized-debit codes R05, R07, R10, R11 stay open until 60 calendar days after it. Null otherwise.',
    ),
    return_code: z
      .enum(ACH_RETURN_CODES)
      .nullable()
      .meta({ description: 'The Nacha return code it was sent back with; null otherwise.' }),
    return_reason: nullableText('The title of the return code; null unless returned.'),
    reference: nullableText("The merchant's reference."),
    description: nullableText('The description given on create.'),
    metadata: wireMetadata,
    created_at: timestamp,
    updated_at: timestamp,
  },
);

/** A settled ACH entry's return window for the 2-banking-day codes (R01's frame); null otherwise. */
export function inboundReturnDeadline(row: InboundTransferRow): Date | null {
  const rule = returnRule('R01');
  return row.state === 'settled' && row.settledAt && rule ? returnDeadlineOf(rule, row.settledAt) : null;
}

export function inboundTransferResource(row: InboundTransferRow): Wire<typeof InboundTransferWire> {
  return {
    id: row.id,
    object: 'inbound_transfer',
    rail: row.rail as Rail,
    direction: row.direction as 'credit' | 'debit',
    state: row.state,
    amount: WireDecimal.of(row.amount, row.currency as CurrencyCode),
    currency: row.currency as CurrencyCode,
    originator: {
      name: row.originatorName,
      routing_number: row.originatorRoutingNumber,
      account_number: `••••${row.originatorAccountLast4}`,
    },
    sec_code: row.secCode as 'PPD' | 'CCD' | 'WEB' | null,
    expected_arrival_at: iso(row.expectedArrivalAt),
    expected_settlement_at: iso(row.expectedSettlementAt),
    settled_at: iso(row.settledAt),
    completed_at: iso(row.completedAt),
    returned_at: iso(row.returnedAt),
    return_deadline: iso(inboundReturnDeadline(row)),
    return_code: row.returnCode,
    return_reason: row.returnReason,
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
