import type { Machine } from '../../kernel/state-machine.ts';
import { cardPaymentMachine, refundMachine } from '../card-payments/card-payments.machine.ts';
import { collectionMachine } from '../collections/collections.machine.ts';
import { disputeMachine } from '../disputes/disputes.machine.ts';
import { fxQuoteMachine, fxSettlementMachine } from '../fx/fx.machine.ts';
import { achInboundMachine, instantInboundMachine } from '../inbound-transfers/inbound-transfers.machine.ts';
import { issuingAuthorizationMachine, virtualCardMachine } from '../issuing/issuing.machine.ts';
import { holdMachine, postingMachine } from '../ledger/ledger.machine.ts';
import {
  achPayoutMachine,
  achTransferMachine,
  rtpPayoutMachine,
  rtpTransferMachine,
} from '../transfers/transfers.machine.ts';

/**
 * The event types the code can emit, `<object>.<state>`, derived from the objects' state machines
 * (so a state added to a machine shows up here): every state of the object's machines, except that
 * an object announcing its creation as `<object>.created` is never announced in an initial state
 * no transition leads back to (a collection is `created`, not `pending`). `also` names the changes
 * that are not states (an authorization is `refunded` while it stays `captured`).
 */
interface EventSource {
  object: string;
  machines: readonly Machine<string, string>[];
  createdEvent: boolean;
  also?: readonly string[];
}

const SOURCES: readonly EventSource[] = [
  { object: 'collection', machines: [collectionMachine], createdEvent: true },
  {
    object: 'card_payment',
    machines: [cardPaymentMachine],
    createdEvent: false,
    also: ['early_fraud_warning'],
  },
  { object: 'refund', machines: [refundMachine], createdEvent: false },
  { object: 'dispute', machines: [disputeMachine], createdEvent: false },
  {
    object: 'transfer',
    machines: [achTransferMachine, rtpTransferMachine],
    createdEvent: true,
    also: ['notification_of_change', 'notification_of_change_refused'],
  },
  { object: 'payout', machines: [achPayoutMachine, rtpPayoutMachine], createdEvent: true },
  {
    object: 'inbound_transfer',
    machines: [achInboundMachine, instantInboundMachine],
    createdEvent: true,
  },
  { object: 'balance_transaction', machines: [holdMachine, postingMachine], createdEvent: true },
  { object: 'virtual_card', machines: [virtualCardMachine], createdEvent: true, also: ['updated'] },
  {
    object: 'issuing_authorization',
    machines: [issuingAuthorizationMachine],
    createdEvent: false,
    also: ['refunded'],
  },
  { object: 'fx_quote', machines: [fxQuoteMachine], createdEvent: true },
  { object: 'fx_conversion', machines: [], createdEvent: false, also: ['completed'] },
  { object: 'fx_settlement', machines: [fxSettlementMachine], createdEvent: true },
  { object: 'webhook', machines: [], createdEvent: false, also: ['test'] },
];

/** The wildcard an endpoint subscribes with to receive every type. */
export const ALL_EVENTS = '*';

export interface EventTypeGroup {
  object: string;
  types: string[];
}

/** A machine's states as events: its initial state is dropped when creation is its own event. */
function statesAnnounced(machine: Machine<string, string>, createdEvent: boolean): string[] {
  const reached = new Set(Object.values(machine.transitions).map((step) => step.to));
  return machine.states.filter(
    (state) => !(createdEvent && state === machine.initial && !reached.has(state)),
  );
}

function typesOf(source: EventSource): string[] {
  const states = [
    ...(source.createdEvent ? ['created'] : []),
    ...source.machines.flatMap((machine) => statesAnnounced(machine, source.createdEvent)),
    ...(source.also ?? []),
  ];
  return [...new Set(states)].map((state) => `${source.object}.${state}`);
}

/** Every event type the code can emit, grouped by object (for pickers: the dashboard's checkboxes). */
export function eventTypeGroups(): EventTypeGroup[] {
  return SOURCES.map((source) => ({ object: source.object, types: typesOf(source) }));
}

/** Every event type the code can emit (GET /v1/event_types, GraphQL eventTypes). */
export function listEventTypes(): string[] {
  return eventTypeGroups().flatMap((group) => group.types);
}
