import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * Inbound ACH and Same-Day ACH entries (an outside originator's credit or debit to the merchant's
 * account): pending (sent, travelling in its FedACH window) → settled (at the window's settlement;
 * a credit's funds become available, a debit takes the money) → returned (the merchant, as the
 * receiver, sends it back within the Nacha time frame).
 */
export const achInboundMachine = defineMachine({
  object: 'inbound ACH transfer',
  states: ['pending', 'settled', 'returned'],
  initial: 'pending',
  final: ['returned'],
  transitions: {
    settle: { from: ['pending'], to: 'settled' },
    return: { from: ['settled'], to: 'returned' },
  },
});

/** Inbound RTP and FedNow credits: pending → completed the moment they arrive (irrevocable). */
export const instantInboundMachine = defineMachine({
  object: 'inbound instant transfer',
  states: ['pending', 'completed'],
  initial: 'pending',
  final: ['completed'],
  transitions: {
    complete: { from: ['pending'], to: 'completed' },
  },
});

export type InboundState =
  | (typeof achInboundMachine)['states'][number]
  | (typeof instantInboundMachine)['states'][number];

/** Every state of an inbound transfer, on any rail (list filters, docs). */
export const INBOUND_STATES: readonly InboundState[] = [
  ...new Set([...achInboundMachine.states, ...instantInboundMachine.states]),
];
