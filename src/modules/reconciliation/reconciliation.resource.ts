import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { defineObject, field } from '../../kernel/declare.ts';
import { WireDecimal } from '../../kernel/wire-json.ts';
import { type Wire, wireDecimal } from '../../kernel/wire-resources.ts';
import { expectedPaymentMachine } from './reconciliation.machine.ts';
import type { ExpectedPaymentRow } from './reconciliation.table.ts';

export type { ExpectedPaymentRow } from './reconciliation.table.ts';

const usd = (amount: bigint) => ({ amount, currency: 'USD' as CurrencyCode });

const MatchWire = z
  .object({
    posting_id: z.string().meta({ description: 'The ledger posting (btx_…): its line on the statement.' }),
    source_type: z.string().meta({ description: 'transfer, payout or inbound_transfer.' }),
    source_id: z.string().meta({ description: 'The object that moved the money.' }),
    amount: wireDecimal.meta({ description: 'How much of the expected amount it covers.' }),
    booked_at: z.string().meta({ description: 'When it was booked, clock time.' }),
  })
  .meta({ id: 'ExpectedPaymentMatch', description: 'A movement an expected payment matched.' });

export const ExpectedPayment = defineObject<ExpectedPaymentRow>()(
  'ExpectedPayment',
  'expected_payment',
  "Money the merchant expects to come in (credit) or go out (debit): an amount or a range, a window of days, optionally a rail and a reference. Sandbank matches it against the bank movements of the merchant's statements: unmatched → partially_matched → matched, or overdue when the window ends first; canceled by the merchant.",
  {
    direction: field.enum(['credit', 'debit'], 'credit: into the account; debit: out of it.'),
    state: field.enum(expectedPaymentMachine.states, 'Where it stands.'),
    amount_min: field.money<ExpectedPaymentRow>('The least amount that matches.', (row) =>
      usd(row.amountMin),
    ),
    amount_max: field.money<ExpectedPaymentRow>('The most amount that matches.', (row) => usd(row.amountMax)),
    currency: field.currency(),
    amount_matched: field.money<ExpectedPaymentRow>('How much the matched movements add up to.', (row) =>
      usd(row.amountMatched),
    ),
    rail: field.nullableText('Only movements on this rail match; null: any rail.'),
    date_from: field.text('The first day of the window (New York).'),
    date_to: field.text('The last day of the window (New York): overdue at its end unless matched.'),
    matches: field.custom<ExpectedPaymentRow>(
      z.array(MatchWire).meta({ description: 'The movements it matched, in the order they were booked.' }),
      (row) => row.matches.map((m) => ({ ...m, amount: WireDecimal.of(BigInt(m.amount), 'USD') })),
    ),
    matched_at: field.nullableTimestamp('When the movement that matched it in full was booked; null before.'),
    reference: field.nullableText('The reference the payment carries; null: a single movement must match.'),
    description: field.nullableText('The description given on create.'),
    metadata: field.metadata(),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);

export const ExpectedPaymentWire = ExpectedPayment.wire;

export function expectedPaymentResource(row: ExpectedPaymentRow): Wire<typeof ExpectedPaymentWire> {
  return ExpectedPayment.render(row, { publicUrl: '' });
}
