import { z } from 'zod';
import { defineObject, type FieldDecl, field } from '../../kernel/declare.ts';
import { idOf, type Wire } from '../../kernel/wire-resources.ts';
import { NotificationOfChangeWire, nocWire } from '../bank-accounts/bank-accounts.corrections.ts';
import {
  achPayoutMachine,
  achTransferMachine,
  rtpPayoutMachine,
  rtpTransferMachine,
  statesOf as statesOfKind,
  wirePayoutMachine,
  wireTransferMachine,
} from './transfers.machine.ts';
import { ACH_RETURN_CODES, isInstantRail, RAILS, RTP_REJECT_REASONS } from './transfers.rails.ts';
import { CONTEST_CODES, DISHONOR_CODES } from './transfers.returns.ts';
import type { transfers } from './transfers.table.ts';

export type { WireRecallRecord } from './transfers.table.ts';

import { WIRE_RETURN_REASONS } from './transfers.wire.ts';
import { WsudWire } from './transfers.wsud.ts';

/** A wire's recall and the beneficiary bank's answer, as REST and events show it. */
export const WireRecallWire = z
  .object({
    reason: z
      .string()
      .meta({ description: 'The ISO 20022 cancellation reason (DUPL, FRAD, TECH, CUST, AM09, AC03, UPAY).' }),
    reason_text: z.string().meta({ description: 'What the reason means.' }),
    requested_at: z.string().meta({ description: 'When the recall was requested (clock time).' }),
    state: z.enum(['requested', 'accepted', 'refused']).meta({
      description: "requested (waiting for the bank's answer), accepted (the wire came back), refused.",
    }),
    answer_due_at: z.string().meta({ description: 'When the beneficiary bank answers.' }),
    answered_at: z.string().nullable().meta({ description: 'When it answered; null before.' }),
    refusal_code: z.string().nullable().meta({
      description: 'The camt.029 reason of a refusal (CUST, NOAS, LEGL, ARDT, AM04); null otherwise.',
    }),
    refusal_reason: z
      .string()
      .nullable()
      .meta({ description: 'What the refusal code means; null otherwise.' }),
  })
  .meta({ id: 'WireRecall', description: "A wire's recall (camt.056) and the beneficiary bank's answer." });

/** The codes a transfer or payout comes back with: Nacha's (ACH) and ISO 20022's (Fedwire). */
const RETURN_CODES = [...ACH_RETURN_CODES, ...Object.keys(WIRE_RETURN_REASONS)];

/** A row of the rail engine: a transfer (`tr_`) or a payout (`po_`), as its `kind` says. */
export type TransferRow = typeof transfers.$inferSelect;
export type PayoutRow = TransferRow & { kind: 'payout' };

/** The states of the machines that apply, each once, in the machines' order. */
function statesOf(...machines: readonly { states: readonly string[] }[]) {
  return [...new Set(machines.flatMap((machine) => machine.states))];
}

/** A nullable field with its own value on both surfaces (GraphQL's type: `String`, or the object's `enums`). */
const nullable =
  (wire: z.ZodType, graphql: 'String' | 'enum', get: (row: TransferRow) => unknown) =>
  (): FieldDecl<TransferRow> => ({ wire, graphql, nullable: true, rest: get, value: get });

/** The rail (a payout's `method`): the row's `rail` on both surfaces. */
const rail = (description: string) => (): FieldDecl<TransferRow> => ({
  wire: z.enum(RAILS).meta({ description }),
  graphql: 'enum',
  nullable: false,
  rest: (row) => row.rail,
  value: (row) => row.rail,
});

/** The fields of a return's dishonor and contest, the same on transfers and payouts. */
const returnDisputeFields = {
  return_untimely: field.boolean<TransferRow>(
    "Whether the return arrived after its code's time frame (let through with `untimely: true`); the ODFI may dishonor such a return R68. False otherwise.",
  ),
  dishonored_at: field.nullableTimestamp<TransferRow>(
    'When the ODFI dishonored the return (state return_dishonored); null otherwise.',
  ),
  dishonor_code: field.nullableEnum<TransferRow, typeof DISHONOR_CODES>(
    DISHONOR_CODES,
    'The Nacha code the ODFI dishonored the return with (R61-R70); null unless dishonored.',
  ),
  dishonor_reason: field.nullableText<TransferRow>(
    'The title of the dishonor code (Untimely Return); null unless dishonored.',
  ),
  contested_at: field.nullableTimestamp<TransferRow>(
    'When the RDFI contested the dishonor (state return_contested); null otherwise.',
  ),
  contest_code: field.nullableEnum<TransferRow, typeof CONTEST_CODES>(
    CONTEST_CODES,
    'The Nacha code the RDFI contested the dishonor with (R71-R77); null unless contested.',
  ),
  contest_reason: field.nullableText<TransferRow>(
    'The title of the contest code (Timely Original Return); null unless contested.',
  ),
};

/** A bank account as an entry shows it: never its full account number. */
export const BankAccountSummaryWire = z
  .object({
    name: z.string().meta({ description: "The account holder's name." }),
    routing_number: z.string().meta({ description: 'The ABA routing number (9 digits).' }),
    account_number: z
      .string()
      .meta({ description: 'The account number masked to its last 4 digits (••••6789).' }),
    account_type: z.enum(['checking', 'savings']),
  })
  .meta({
    id: 'BankAccountSummary',
    description: 'A US bank account as a transfer or payout shows it: the account number masked.',
  });

// GraphQL answers the account as an object of its own (TransferCounterparty, transfers.graphql.ts).
const bankAccount = field.custom<TransferRow>(
  BankAccountSummaryWire,
  (row): Wire<typeof BankAccountSummaryWire> => ({
    name: row.counterpartyName,
    routing_number: row.routingNumber,
    account_number: `••••${row.accountLast4}`,
    account_type: row.accountType as 'checking' | 'savings',
  }),
);

const labels = {
  reference: field.nullableText<TransferRow>("The merchant's reference."),
  description: field.nullableText<TransferRow>('The description given on create.'),
  metadata: field.metadata<TransferRow>(),
  created_at: field.createdAt<TransferRow>(),
  updated_at: field.updatedAt<TransferRow>(),
};

export const Transfer = defineObject<TransferRow>()(
  'Transfer',
  'transfer',
  `A bank transfer over ACH, Same-Day ACH, RTP, FedNow or Fedwire (wire): a credit sends money to the counterparty (held from the available balance at once), a debit pulls it from them. States: ${statesOfKind('transfer').join(', ')}.`,
  {
    rail: rail(
      'The rail: ach (standard ACH), same_day_ach, rtp (RTP, instant), fednow (FedNow, instant; credits only) or wire (Fedwire; credits only).',
    ),
    direction: field.enum(
      ['credit', 'debit'],
      'credit sends money to the counterparty; debit pulls it (ACH only).',
    ),
    state: field.enum(
      statesOf(achTransferMachine, rtpTransferMachine, wireTransferMachine),
      "ACH and Same-Day ACH: pending → submitted (at the window cut-off) → settled, then possibly returned (a return may also come before settlement); pending → canceled before submission. A return of a settled entry may be dishonored by the ODFI (return_dishonored), and the dishonor contested by the RDFI (return_contested). RTP: pending → completed or rejected, seconds after sending. Wire: pending (until the Fedwire operating day) → completed, final; then returned only if the beneficiary's bank sends it back; pending → canceled before it is processed.",
    ),
    amount: field.money(),
    currency: field.currency(),
    counterparty: bankAccount,
    sec_code: field.nullableEnum(
      ['PPD', 'CCD', 'WEB'],
      'The ACH Standard Entry Class code; null on RTP and FedNow.',
    ),
    expected_submission_at: field.nullableTimestamp(
      'ACH: the cut-off of the FedACH window the entry goes in (it is submitted then); null on RTP.',
    ),
    submitted_at: field.nullableTimestamp(
      'When the entry was submitted to the rail (RTP: when it was sent, set on completion); null before.',
    ),
    expected_settlement_at: field.nullableTimestamp(
      'When the entry is expected to settle (RTP: to complete); null when no settlement is to be expected (an entry that stays submitted until a simulate step moves it).',
    ),
    settled_at: field.nullableTimestamp('When the entry settled (RTP: completed); null before.'),
    returned_at: field.nullableTimestamp('When the entry came back (state returned); null otherwise.'),
    return_code: field.nullableEnum(
      RETURN_CODES,
      "The code it came back with (state returned): Nacha's on ACH, ISO 20022's on Fedwire (AC01, AC04, AC06, FOCR: after a recall); null otherwise.",
    ),
    return_reason: field.nullableText(
      'The title of the return code (Insufficient Funds); null unless returned.',
    ),
    ...returnDisputeFields,
    failure_reason: field.nullableText(
      'Why an RTP transfer was rejected (state rejected): the ISO 20022 reason and its meaning (AC03: Invalid creditor account number); null otherwise.',
    ),
    collection: nullable(
      idOf(
        "collection this ACH debit pays (its checkout's bank payment); null for any other transfer",
      ).nullable(),
      'String',
      (row) => row.collectionId,
    ),
    counterparty_id: nullable(
      idOf('saved counterparty (cpty_…) it was sent to; null for an inline account').nullable(),
      'String',
      (row) => row.counterpartyId,
    ),
    // GraphQL: nocs.graphql.ts answers them with their own type.
    notifications_of_change: field.custom(
      z.array(NotificationOfChangeWire).meta({
        description:
          'The notifications of change the receiving bank sent about this ACH entry, latest last: one, and after a refused one possibly a corrected one.',
      }),
      (row) => row.notificationsOfChange.map(nocWire),
    ),
    // GraphQL: transfers.graphql.ts answers it with its own type.
    wsud: field.custom(WsudWire.nullable(), (row) => row.wsud ?? null),
    imad: field.nullableText(
      "Fedwire: the Input Message Accountability Data, the wire's reference (cycle date, input source, sequence: 22 characters); null on other rails.",
    ),
    omad: field.nullableText(
      'Fedwire: the Output Message Accountability Data of its delivery (34 characters), set when completed; null before and on other rails.',
    ),
    // GraphQL: transfers.graphql.ts answers it with its own type.
    recall: field.custom(WireRecallWire.nullable(), (row) => row.recall ?? null),
    ...labels,
  },
);

/** When the payout went in transit: ACH's submission; an RTP payout is never in transit (instant). */
export const payoutInTransitAt = (row: TransferRow): Date | null =>
  isInstantRail(row.rail) ? null : row.submittedAt;

/** When the payout arrives (arrived): none for one that never will (failed, canceled). */
export const payoutArrivalAt = (row: TransferRow): Date | null =>
  row.state === 'failed' || row.state === 'canceled' ? null : row.expectedSettlementAt;

/**
 * A payout is an engine row too: `in_transit_at` / `arrival_at` / `paid_at` are the row's
 * submission / expected settlement / settlement; `failure_code` is the ACH return code or the RTP
 * rejection reason, whichever ended it.
 */
export const Payout = defineObject<TransferRow>()(
  'Payout',
  'payout',
  `A payout of the available USD balance to the merchant's own bank account, over ACH, Same-Day ACH, RTP, FedNow or Fedwire. States: ${statesOfKind('payout').join(', ')}.`,
  {
    method: rail(
      'The rail: ach (standard ACH), same_day_ach, rtp (RTP, instant) or fednow (FedNow, instant; credits only).',
    ),
    state: field.enum(
      statesOf(achPayoutMachine, rtpPayoutMachine, wirePayoutMachine),
      'ACH and Same-Day ACH: pending → in_transit (submitted at the window cut-off) → paid (settled); sent back by the bank, it is failed while in transit and returned once paid; pending → canceled before submission. A return of a paid payout may be dishonored (return_dishonored) and the dishonor contested (return_contested). RTP: pending → paid or failed, seconds after sending.',
    ),
    amount: field.money(),
    currency: field.currency(),
    destination: bankAccount,
    counterparty_id: nullable(
      idOf('saved counterparty (cpty_…) it was paid to; null for an inline account').nullable(),
      'String',
      (row) => row.counterpartyId,
    ),
    expected_submission_at: field.nullableTimestamp(
      'ACH: the cut-off of the FedACH window the payout goes in (it is in transit then); null on RTP.',
    ),
    in_transit_at: field.nullableTimestamp(
      'When the payout went in transit (ACH submission); null before, and always on RTP (instant).',
      payoutInTransitAt,
    ),
    arrival_at: field.nullableTimestamp(
      'When the payout arrives (is expected to be paid); null for one that never will (failed, canceled) or that stays in transit until a simulate step moves it.',
      payoutArrivalAt,
    ),
    paid_at: field.nullableTimestamp(
      'When the payout was paid (settled); null before.',
      (row) => row.settledAt,
    ),
    returned_at: field.nullableTimestamp(
      'When the bank sent the payout back (ACH: failed or returned); null otherwise.',
    ),
    failure_code: nullable(
      z
        .enum([...RETURN_CODES, ...(Object.keys(RTP_REJECT_REASONS) as (keyof typeof RTP_REJECT_REASONS)[])])
        .nullable()
        .meta({
          description:
            'What ended it: the Nacha return code (ACH: failed or returned; kept when that return is dishonored or contested, beside the dishonor and contest codes) or the ISO 20022 rejection reason (RTP and FedNow: failed); null otherwise.',
        }),
      'enum',
      (row) => row.returnCode ?? (row.state === 'failed' && isInstantRail(row.rail) ? row.outcomeCode : null),
    ),
    failure_reason: field.nullableText(
      'The meaning of the failure code (Account Closed; AC03: Invalid creditor account number); null otherwise.',
      (row) => row.returnReason ?? row.failureReason,
    ),
    ...returnDisputeFields,
    ...labels,
  },
);

export const TransferWire = Transfer.wire;
export const PayoutWire = Payout.wire;
const NO_LINKS = { publicUrl: '' };

/** The API representation of a transfer: REST bodies and event payloads. */
export const transferResource = (row: TransferRow) => Transfer.render(row, NO_LINKS);
/** The API representation of a payout. */
export const payoutResource = (row: TransferRow) => Payout.render(row, NO_LINKS);

/** The resource of an engine row, by its kind. */
export function railEntryResource(row: TransferRow) {
  return row.kind === 'payout' ? payoutResource(row) : transferResource(row);
}
