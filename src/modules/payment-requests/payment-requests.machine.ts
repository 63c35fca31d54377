import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * A request for payment: pending (sent, awaiting the payer's answer) → accepted (pain.014 accepted)
 * → paid (the payer's credit transfer); pending → rejected (pain.014 with a reason); pending or
 * accepted → expired (past its expiry, unpaid) or canceled (withdrawn by the requester).
 */
export const paymentRequestMachine = defineMachine({
  object: 'payment request',
  states: ['pending', 'accepted', 'rejected', 'paid', 'expired', 'canceled'],
  initial: 'pending',
  final: ['rejected', 'paid', 'expired', 'canceled'],
  transitions: {
    accept: { from: ['pending'], to: 'accepted' },
    reject: { from: ['pending'], to: 'rejected' },
    pay: { from: ['accepted'], to: 'paid' },
    expire: { from: ['pending', 'accepted'], to: 'expired' },
    cancel: { from: ['pending', 'accepted'], to: 'canceled' },
  },
});

export type PaymentRequestState = (typeof paymentRequestMachine.states)[number];
export type PaymentRequestEvent = keyof typeof paymentRequestMachine.transitions;
