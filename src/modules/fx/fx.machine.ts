import { defineMachine } from '../../kernel/state-machine.ts';

/** A quote is open until a conversion or a settlement uses it, or its lock runs out. */
export const fxQuoteMachine = defineMachine({
  object: 'FX quote',
  states: ['open', 'used', 'expired'],
  initial: 'open',
  final: ['used', 'expired'],
  transitions: {
    use: { from: ['open'], to: 'used' },
    expire: { from: ['open'], to: 'expired' },
  },
});

/**
 * A settlement abroad: pending (created) → converted (the target amount is fixed and
 * held on the target balance) → paid (the next US banking day) | failed (the destination refused).
 */
export const fxSettlementMachine = defineMachine({
  object: 'FX settlement',
  states: ['pending', 'converted', 'paid', 'failed'],
  initial: 'pending',
  final: ['paid', 'failed'],
  transitions: {
    convert: { from: ['pending'], to: 'converted' },
    pay: { from: ['converted'], to: 'paid' },
    fail: { from: ['converted'], to: 'failed' },
  },
});

export type FxQuoteState = (typeof fxQuoteMachine.states)[number];
export type FxQuoteEvent = keyof typeof fxQuoteMachine.transitions;
export type FxSettlementState = (typeof fxSettlementMachine.states)[number];
export type FxSettlementEvent = keyof typeof fxSettlementMachine.transitions;
/** A conversion has no machine: it is written `completed`, in the request that makes it. */
export const fxConversionStates = ['completed'] as const;
export type FxConversionState = (typeof fxConversionStates)[number];
