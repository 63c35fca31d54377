import { describedValues } from '../../kernel/described-values.ts';
import { cardPaymentMachine } from '../card-payments/card-payments.machine.ts';
import { collectionMachine } from '../collections/collections.machine.ts';
import { fxConversionStates, fxSettlementMachine } from '../fx/fx.machine.ts';
import { issuingAuthorizationMachine } from '../issuing/issuing.machine.ts';
import { statesOf } from '../transfers/transfers.machine.ts';
import { TRANSACTION_KINDS, type TransactionKind } from './transactions.service.ts';

/**
 * The kinds of transaction and the states they can be in, declared once from the kinds' state
 * machines: GraphQL's TransactionKind and TransactionState enums are derived from them.
 */

/** Each kind's states, from its state machine (a conversion is completed at once). */
const STATES_BY_KIND = {
  collection: collectionMachine.states,
  card_payment: cardPaymentMachine.states,
  transfer: statesOf('transfer'),
  payout: statesOf('payout'),
  issuing_authorization: issuingAuthorizationMachine.states,
  fx_conversion: fxConversionStates,
  fx_settlement: fxSettlementMachine.states,
} as const satisfies Record<TransactionKind, readonly string[]>;

type TransactionState = (typeof STATES_BY_KIND)[TransactionKind][number];

/** Every state a transaction of some kind can be in, sorted (the dashboard's state filter offers them). */
export function transactionStates(): string[] {
  return [...new Set(Object.values(STATES_BY_KIND).flat())].sort();
}

export const TransactionKindValues = describedValues(
  'TransactionKind',
  'The kinds of transaction the transactions list spans.',
  {
    collection: 'A hosted checkout session (Collection).',
    card_payment: 'A card payment (CardPayment).',
    transfer: 'A bank transfer (Transfer).',
    payout: "A payout to the merchant's own bank account (Payout).",
    issuing_authorization: 'An authorization on a virtual card (IssuingAuthorization).',
    fx_conversion: 'USD converted into another currency (FxConversion).',
    fx_settlement: 'A payment abroad (FxSettlement).',
  } satisfies Record<TransactionKind, string>,
);

/** What each state means; the kinds that use it are appended from the machines. */
const STATE_MEANINGS: Record<TransactionState, string> = {
  pending: 'Created; nothing has moved yet',
  processing: 'A bank payment is on its way',
  succeeded: 'Paid',
  failed: 'Did not go through (declined, refused or sent back before it was final)',
  expired: 'Ran out of time before it completed',
  canceled: 'Canceled before it moved',
  requires_action: 'Waits for the payer to complete 3-D Secure',
  authorized: 'Authorized and not yet captured',
  captured: 'Captured',
  partially_refunded: 'Captured, with part of it refunded',
  refunded: 'Refunded in full',
  declined: 'Declined',
  voided: 'Authorized, then released without capture',
  submitted: 'Sent to the bank in an ACH file',
  settled: 'Settled at the receiving bank',
  returned: 'Sent back by the receiving bank after it settled',
  return_dishonored:
    "Its return was dishonored by the originating bank (R61-R70): the entry's effect applies again",
  return_contested:
    'The dishonor of its return was contested by the receiving bank (R71-R77): returned again, final',
  completed: 'Done: an RTP transfer that arrived, a conversion (done at once)',
  rejected: 'Refused by the receiving bank (RTP)',
  in_transit: 'Submitted and on its way',
  paid: 'Paid to its destination',
  approved: 'Approved and holding funds',
  reversed: 'Released back to the card, in full',
  converted: 'Converted, waiting for its payment day',
};

function stateDescription(state: TransactionState): string {
  const kinds = TRANSACTION_KINDS.filter((kind) =>
    (STATES_BY_KIND[kind] as readonly string[]).includes(state),
  );
  return `${STATE_MEANINGS[state]}. Kinds: ${kinds.join(', ')}.`;
}

export const TransactionStateValues = describedValues(
  'TransactionState',
  "Every state a transaction can be in. Each kind has its own states (its type's description lists them); each value says which kinds use it.",
  Object.fromEntries(
    (Object.keys(STATE_MEANINGS) as TransactionState[]).map((state) => [state, stateDescription(state)]),
  ) as Record<TransactionState, string>,
);
