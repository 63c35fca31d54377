import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * Collections: pending → processing → succeeded | failed; pending → succeeded (card); pending →
 * expired | canceled. A bank payment succeeds when its ACH debit settles; a return that arrives
 * after settlement (R01 comes a banking day later) still fails it, as the money goes back.
 */
export const collectionMachine = defineMachine({
  object: 'collection',
  states: ['pending', 'processing', 'succeeded', 'failed', 'expired', 'canceled'],
  initial: 'pending',
  final: ['failed', 'expired', 'canceled'],
  transitions: {
    pay_by_card: { from: ['pending'], to: 'succeeded' },
    submit_bank_payment: { from: ['pending'], to: 'processing' },
    settle_bank_payment: { from: ['processing'], to: 'succeeded' },
    fail_bank_payment: { from: ['processing'], to: 'failed' },
    return_bank_payment: { from: ['succeeded'], to: 'failed' },
    expire: { from: ['pending'], to: 'expired' },
    cancel: { from: ['pending'], to: 'canceled' },
  },
});

export type CollectionState = (typeof collectionMachine.states)[number];
export type CollectionEvent = keyof typeof collectionMachine.transitions;

/** A payment attempt's own small lifecycle: a 3-D Secure challenge ends in success or failure. */
export const attemptMachine = defineMachine({
  object: 'payment attempt',
  states: ['requires_action', 'processing', 'succeeded', 'failed'],
  initial: 'requires_action',
  final: ['succeeded', 'failed'],
  transitions: {
    complete_challenge: { from: ['requires_action'], to: 'succeeded' },
    fail: { from: ['requires_action', 'processing'], to: 'failed' },
    settle: { from: ['processing'], to: 'succeeded' },
  },
});

export type AttemptState = (typeof attemptMachine.states)[number];
