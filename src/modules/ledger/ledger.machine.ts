import { defineMachine } from '../../kernel/state-machine.ts';

/** A hold (TigerBeetle's pending transfer): posted to its destination or voided back to available. */
export const holdMachine = defineMachine({
  object: 'hold',
  states: ['pending', 'posted', 'voided'],
  initial: 'pending',
  final: ['posted', 'voided'],
  transitions: {
    post: { from: ['pending'], to: 'posted' },
    void: { from: ['pending'], to: 'voided' },
  },
});

/** A posted balance transaction: undone at most once by a reversal (a new posting of the negated entries). */
export const postingMachine = defineMachine({
  object: 'balance transaction',
  states: ['posted', 'reversed'],
  initial: 'posted',
  final: ['reversed'],
  transitions: {
    reverse: { from: ['posted'], to: 'reversed' },
  },
});

export type HoldEvent = keyof typeof holdMachine.transitions;
export type PostingEvent = keyof typeof postingMachine.transitions;
/** Every state of a posting: a hold's (pending → posted | voided) and a posted one's (→ reversed). */
export type PostingState = (typeof holdMachine.states)[number] | (typeof postingMachine.states)[number];
