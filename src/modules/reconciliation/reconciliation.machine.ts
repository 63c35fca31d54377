import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * An expected payment: unmatched → partially_matched (movements with its reference, short of its
 * amount) → matched (a movement, or the sum of its reference's movements, within its amount range);
 * unmatched or partially_matched → overdue once its window has ended, or canceled by the merchant.
 */
export const expectedPaymentMachine = defineMachine({
  object: 'expected payment',
  states: ['unmatched', 'partially_matched', 'matched', 'overdue', 'canceled'],
  initial: 'unmatched',
  final: ['matched', 'overdue', 'canceled'],
  transitions: {
    match_part: { from: ['unmatched', 'partially_matched'], to: 'partially_matched' },
    match: { from: ['unmatched', 'partially_matched'], to: 'matched' },
    lapse: { from: ['unmatched', 'partially_matched'], to: 'overdue' },
    cancel: { from: ['unmatched', 'partially_matched'], to: 'canceled' },
  },
});

export type ExpectedPaymentState = (typeof expectedPaymentMachine.states)[number];
export type ExpectedPaymentEvent = keyof typeof expectedPaymentMachine.transitions;
