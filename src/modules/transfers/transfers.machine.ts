import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * API.md §5, ACH and Same-Day ACH: pending → submitted → settled, then possibly returned (a return
 * may also come before settlement); pending → canceled before submission.
 */
export const achTransferMachine = defineMachine({
  object: 'transfer',
  states: ['pending', 'submitted', 'settled', 'returned', 'canceled'],
  initial: 'pending',
  final: ['returned', 'canceled'],
  transitions: {
    submit: { from: ['pending'], to: 'submitted' },
    settle: { from: ['submitted'], to: 'settled' },
    return: { from: ['submitted', 'settled'], to: 'returned' },
    cancel: { from: ['pending'], to: 'canceled' },
  },
});

/** RTP: pending → completed | rejected within seconds; irrevocable once completed. */
export const rtpTransferMachine = defineMachine({
  object: 'RTP transfer',
  states: ['pending', 'completed', 'rejected'],
  initial: 'pending',
  final: ['completed', 'rejected'],
  transitions: {
    complete: { from: ['pending'], to: 'completed' },
    reject: { from: ['pending'], to: 'rejected' },
  },
});

export type AchTransferEvent = keyof typeof achTransferMachine.transitions;
export type RtpTransferEvent = keyof typeof rtpTransferMachine.transitions;
