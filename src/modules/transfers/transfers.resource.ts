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
import { NotificationOfChangeWire, nocWire } from '../bank-accounts/bank-accounts.corrections.ts';
import {
  achPayoutMachine,
  achTransferMachine,
  rtpPayoutMachine,
  rtpTransferMachine,
} from './transfers.machine.ts';
import {
  ACH_RETURN_CODES,
  type Direction,
  isInstantRail,
  RAILS,
  type Rail,
  RTP_REJECT_REASONS,
} from './transfers.rails.ts';
import { CONTEST_CODES, DISHONOR_CODES } from './transfers.returns.ts';
import type { transfers } from './transfers.table.ts';

/** A row of the rail engine: a transfer (`tr_`) or a payout (`po_`), as its `kind` says. */
export type TransferRow = typeof transfers.$inferSelect;
export type PayoutRow = TransferRow & { kind: 'payout' };

const iso = (at: Date | null) => at?.toISOString() ?? null;
const nullableText = (description: string) => z.string().nullable().meta({ description });
const nullableTimestamp = (description: string) => timestamp.nullable().meta({ description });

/** The states of the machines that apply, each once, in the machines' order. */
function statesOf<const M extends readonly { states: readonly string[] }[]>(
  description: string,
  ...machines: M
) {
  const states = [...new Set(machines.flatMap((machine) => machine.states))] as M[number]['states'][number][];
  return z.enum(states).meta({ description });
}

const transferState = statesOf(
  'ACH and Same-Day ACH: pending → submitted (at the window cut-off) → settled, then possibly returned (a return may also come before settlement); pending → canceled before submission. A return of a settled entry may be dishonored by the ODFI (return_dishonored), and the dishonor contested by the RDFI (return_contested). RTP: pending → completed or rejected, seconds after sending.',
  achTransferMachine,
  rtpTransferMachine,
);
const payoutState = statesOf(
  'ACH and Same-Day ACH: pending → in_transit (submitted at the window cut-off) → paid (settled); sent back by the bank, it is failed while in transit and returned once paid; pending → canceled before submission. A return of a paid payout may be dishonored (return_dishonored) and the dishonor contested (return_contested). RTP: pending → paid or failed, seconds after sending.',
  achPayoutMachine,
  rtpPayoutMachine,
);
type TransferState = z.infer<typeof transferState>;
type PayoutState = z.infer<typeof payoutState>;

const rail = z.enum(RAILS).meta({
  description:
    'The rail: ach (standard ACH), same_day_ach, rtp (RTP, instant) or fednow (FedNow, instant; credits only).',
});

const achReturnCode = z.enum(ACH_RETURN_CODES);

/** The fields of a return's dishonor and contest, the same on transfers and payouts. */
const returnDisputeFields = {
  return_untimely: z.boolean().meta({
    description:
      "Whether the return arrived after its code's time frame (let through with `untimely: true`); the ODFI may dishonor such a return R68. False otherwise.",
  }),
  dishonored_at: nullableTimestamp(
    'When the ODFI dishonored the return (state return_dishonored); null otherwise.',
  ),
  dishonor_code: z.enum(DISHONOR_CODES).nullable().meta({
    description: 'The Nacha code the ODFI dishonored the return with (R61-R70); null unless dishonored.',
  }),
  dishonor_reason: nullableText('The title of the dishonor code (Untimely Return); null unless dishonored.'),
  contested_at: nullableTimestamp(
    'When the RDFI contested the dishonor (state return_contested); null otherwise.',
  ),
  contest_code: z.enum(CONTEST_CODES).nullable().meta({
    description: 'The Nacha code the RDFI contested the dishonor with (R71-R77); null unless contested.',
  }),
  contest_reason: nullableText(
    'The title of the contest code (Timely Original Return); null unless contested.',
  ),
};

const returnDispute = (row: TransferRow) => ({
  return_untimely: row.returnUntimely,
  dishonored_at: iso(row.dishonoredAt),
  dishonor_code: row.dishonorCode as (typeof DISHONOR_CODES)[number] | null,
  dishonor_reason: row.dishonorReason,
  contested_at: iso(row.contestedAt),
  contest_code: row.contestCode as (typeof CONTEST_CODES)[number] | null,
  contest_reason: row.contestReason,
});

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

const bankAccount = (row: TransferRow): Wire<typeof BankAccountSummaryWire> => ({
  name: row.counterpartyName,
  routing_number: row.routingNumber,
  account_number: `••••${row.accountLast4}`,
  account_type: row.accountType as 'checking' | 'savings',
});

export const TransferWire = wireResource(
  'Transfer',
  'transfer',
  'A bank transfer over ACH, Same-Day ACH or RTP: a credit sends money to the counterparty (held from the available balance at once), a debit pulls it from them.',
  {
    rail,
    direction: z
      .enum(['credit', 'debit'])
      .meta({ description: 'credit sends money to the counterparty; debit pulls it (ACH only).' }),
    state: transferState,
    amount: wireDecimal,
    currency: wireCurrency,
    counterparty: BankAccountSummaryWire,
    sec_code: z
      .enum(['PPD', 'CCD', 'WEB'])
      .nullable()
      .meta({ description: 'The ACH Standard Entry Class code; null on RTP.' }),
    expected_submission_at: nullableTimestamp(
      'ACH: the cut-off of the FedACH window the entry goes in (it is submitted then); null on RTP.',
    ),
    submitted_at: nullableTimestamp(
      'When the entry was submitted to the rail (RTP: when it was sent, set on completion); null before.',
    ),
    expected_settlement_at: nullableTimestamp(
      'When the entry is expected to settle (RTP: to complete); null when no settlement is to be expected (an entry that stays submitted until a simulate step moves it).',
    ),
    settled_at: nullableTimestamp('When the entry settled (RTP: completed); null before.'),
    returned_at: nullableTimestamp('When the entry came back (state returned); null otherwise.'),
    return_code: achReturnCode
      .nullable()
      .meta({ description: 'The Nacha return code it came back with (state returned); null otherwise.' }),
    return_reason: nullableText('The title of the return code (Insufficient Funds); null unless returned.'),
    ...returnDisputeFields,
    failure_reason: nullableText(
      'Why an RTP transfer was rejected (state rejected): the ISO 20022 reason and its meaning (AC03: Invalid creditor account number); null otherwise.',
    ),
    collection: idOf(
      "collection this ACH debit pays (its checkout's bank payment); null for any other transfer",
    ).nullable(),
    counterparty_id: idOf(
      'saved counterparty (cpty_…) it was sent to; null for an inline account',
    ).nullable(),
    notifications_of_change: z.array(NotificationOfChangeWire).meta({
      description: 'The notifications of change the receiving bank sent about this ACH entry (at most one).',
    }),
    reference: nullableText("The merchant's reference."),
    description: nullableText('The description given on create.'),
    metadata: wireMetadata,
    created_at: timestamp,
    updated_at: timestamp,
  },
);

export const PayoutWire = wireResource(
  'Payout',
  'payout',
  "A payout of the available USD balance to the merchant's own bank account, over ACH, Same-Day ACH or RTP.",
  {
    method: rail,
    state: payoutState,
    amount: wireDecimal,
    currency: wireCurrency,
    destination: BankAccountSummaryWire,
    counterparty_id: idOf(
      'saved counterparty (cpty_…) it was paid to; null for an inline account',
    ).nullable(),
    expected_submission_at: nullableTimestamp(
      'ACH: the cut-off of the FedACH window the payout goes in (it is in transit then); null on RTP.',
    ),
    in_transit_at: nullableTimestamp(
      'When the payout went in transit (ACH submission); null before, and always on RTP (instant).',
    ),
    arrival_at: nullableTimestamp(
      'When the payout arrives (is expected to be paid); null for one that never will (failed, canceled) or that stays in transit until a simulate step moves it.',
    ),
    paid_at: nullableTimestamp('When the payout was paid (settled); null before.'),
    returned_at: nullableTimestamp(
      'When the bank sent the payout back (ACH: failed or returned); null otherwise.',
    ),
    failure_code: z
      .enum([
        ...ACH_RETURN_CODES,
        ...(Object.keys(RTP_REJECT_REASONS) as (keyof typeof RTP_REJECT_REASONS)[]),
      ])
      .nullable()
      .meta({
        description:
          'What ended it: the Nacha return code (ACH: failed or returned; kept when that return is dishonored or contested, beside dishonor_code and contest_code) or the ISO 20022 rejection reason (RTP and FedNow: failed); null otherwise.',
      }),
    failure_reason: nullableText(
      'The meaning of failure_code (Account Closed; AC03: Invalid creditor account number); null otherwise.',
    ),
    ...returnDisputeFields,
    reference: nullableText("The merchant's reference."),
    description: nullableText('The description given on create.'),
    metadata: wireMetadata,
    created_at: timestamp,
    updated_at: timestamp,
  },
);

/** The API representation of a transfer: REST bodies and event payloads. */
export function transferResource(row: TransferRow): Wire<typeof TransferWire> {
  return {
    id: row.id,
    object: 'transfer',
    rail: row.rail as Rail,
    direction: row.direction as Direction,
    state: row.state as TransferState,
    amount: WireDecimal.of(row.amount, row.currency as CurrencyCode),
    currency: row.currency as CurrencyCode,
    counterparty: bankAccount(row),
    sec_code: row.secCode as Wire<typeof TransferWire>['sec_code'],
    expected_submission_at: iso(row.expectedSubmissionAt),
    submitted_at: iso(row.submittedAt),
    expected_settlement_at: iso(row.expectedSettlementAt),
    settled_at: iso(row.settledAt),
    returned_at: iso(row.returnedAt),
    return_code: row.returnCode,
    return_reason: row.returnReason,
    ...returnDispute(row),
    failure_reason: row.failureReason,
    collection: row.collectionId,
    counterparty_id: row.counterpartyId,
    notifications_of_change: row.notificationsOfChange.map(nocWire),
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The API representation of a payout. `in_transit_at` / `arrival_at` / `paid_at` are
 * the transfer's submission / expected settlement / settlement; `failure_code` is the ACH return
 * code or the RTP rejection reason, whichever ended it.
 */
/** When the payout went in transit: ACH's submission; an RTP payout is never in transit (instant). */
export const payoutInTransitAt = (row: TransferRow): Date | null =>
  isInstantRail(row.rail) ? null : row.submittedAt;

/** When the payout arrives (arrived): none for one that never will (failed, canceled). */
export const payoutArrivalAt = (row: TransferRow): Date | null =>
  row.state === 'failed' || row.state === 'canceled' ? null : row.expectedSettlementAt;

export function payoutResource(row: TransferRow): Wire<typeof PayoutWire> {
  const rtpReason = row.state === 'failed' && isInstantRail(row.rail) ? row.outcomeCode : null;
  return {
    id: row.id,
    object: 'payout',
    method: row.rail as Rail,
    state: row.state as PayoutState,
    amount: WireDecimal.of(row.amount, row.currency as CurrencyCode),
    currency: row.currency as CurrencyCode,
    destination: bankAccount(row),
    counterparty_id: row.counterpartyId,
    expected_submission_at: iso(row.expectedSubmissionAt),
    in_transit_at: iso(payoutInTransitAt(row)),
    arrival_at: iso(payoutArrivalAt(row)),
    paid_at: iso(row.settledAt),
    returned_at: iso(row.returnedAt),
    failure_code: row.returnCode ?? rtpReason,
    failure_reason: row.returnReason ?? row.failureReason,
    ...returnDispute(row),
    reference: row.reference,
    description: row.description,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The resource of an engine row, by its kind. */
export function railEntryResource(row: TransferRow): Wire<typeof TransferWire> | Wire<typeof PayoutWire> {
  return row.kind === 'payout' ? payoutResource(row) : transferResource(row);
}
