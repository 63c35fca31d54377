import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * Card payments: requires_action (3-D Secure) → authorized → captured → partially_refunded / refunded;
 * declined, voided and expired are final. A payment with `capture: true` goes through authorized
 * to captured in one request (both transitions emit events).
 */
export const cardPaymentMachine = defineMachine({
  object: 'card payment',
  states: [
    'requires_action',
    'authorized',
    'captured',
    'partially_refunded',
    'refunded',
    'declined',
    'voided',
    'expired',
  ],
  initial: 'authorized',
  final: ['refunded', 'declined', 'voided', 'expired'],
  transitions: {
    complete_3ds: { from: ['requires_action'], to: 'authorized' },
    fail_3ds: { from: ['requires_action'], to: 'declined' },
    capture: { from: ['authorized'], to: 'captured' },
    void: { from: ['authorized'], to: 'voided' },
    expire: { from: ['authorized'], to: 'expired' },
    refund: { from: ['captured', 'partially_refunded'], to: 'partially_refunded' },
    refund_in_full: { from: ['captured', 'partially_refunded'], to: 'refunded' },
  },
});

export type CardPaymentState = (typeof cardPaymentMachine.states)[number];
export type CardPaymentEvent = keyof typeof cardPaymentMachine.transitions;

/** A refund: pending → succeeded | failed. */
export const refundMachine = defineMachine({
  object: 'refund',
  states: ['pending', 'succeeded', 'failed'],
  initial: 'pending',
  final: ['succeeded', 'failed'],
  transitions: {
    succeed: { from: ['pending'], to: 'succeeded' },
    fail: { from: ['pending'], to: 'failed' },
  },
});

export type RefundState = (typeof refundMachine.states)[number];
export type RefundEvent = keyof typeof refundMachine.transitions;
