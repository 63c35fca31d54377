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
