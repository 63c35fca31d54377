import { defineMachine } from '../../kernel/state-machine.ts';

/** A virtual card is active ⇄ frozen, and canceled (final) from either. */
export const virtualCardMachine = defineMachine({
  object: 'virtual card',
  states: ['active', 'frozen', 'canceled'],
  initial: 'active',
  final: ['canceled'],
  transitions: {
    freeze: { from: ['active'], to: 'frozen' },
    unfreeze: { from: ['frozen'], to: 'active' },
    cancel: { from: ['active', 'frozen'], to: 'canceled' },
  },
});

/**
 * An issuing authorization: approved (funds held) or declined at once; an approved one is captured
 * (clearing), reversed in full (a partial reversal keeps it approved for the rest) or expires 7
 * days later. Refunds of a captured one are counted on it, without a state change.
 */
export const issuingAuthorizationMachine = defineMachine({
  object: 'issuing authorization',
  states: ['approved', 'declined', 'captured', 'reversed', 'expired'],
  initial: 'approved',
  final: ['declined', 'reversed', 'expired'],
  transitions: {
    capture: { from: ['approved'], to: 'captured' },
    reverse_part: { from: ['approved'], to: 'approved' },
    reverse: { from: ['approved'], to: 'reversed' },
    expire: { from: ['approved'], to: 'expired' },
    refund: { from: ['captured'], to: 'captured' },
  },
});

export type VirtualCardState = (typeof virtualCardMachine.states)[number];
export type VirtualCardEvent = keyof typeof virtualCardMachine.transitions;
export type IssuingAuthorizationState = (typeof issuingAuthorizationMachine.states)[number];
export type IssuingAuthorizationEvent = keyof typeof issuingAuthorizationMachine.transitions;
