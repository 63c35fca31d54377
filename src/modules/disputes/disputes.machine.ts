import { defineMachine } from '../../kernel/state-machine.ts';

/**
 * A dispute of a captured card payment (docs/guide/disputes.md). A chargeback: needs_response →
 * under_review (evidence submitted) → won | lost; closing it, or letting its evidence due date
 * pass, loses it. An inquiry (a `warning_*` dispute, nothing debited): warning_needs_response →
 * warning_under_review → warning_closed, or escalated to a chargeback (needs_response).
 */
export const disputeMachine = defineMachine({
  object: 'dispute',
  states: [
    'warning_needs_response',
    'warning_under_review',
    'warning_closed',
    'needs_response',
    'under_review',
    'won',
    'lost',
  ],
  initial: 'needs_response',
  final: ['warning_closed', 'won', 'lost'],
  transitions: {
    submit_warning: { from: ['warning_needs_response'], to: 'warning_under_review' },
    close_warning: { from: ['warning_needs_response', 'warning_under_review'], to: 'warning_closed' },
    escalate: { from: ['warning_needs_response', 'warning_under_review'], to: 'needs_response' },
    submit: { from: ['needs_response'], to: 'under_review' },
    win: { from: ['needs_response', 'under_review'], to: 'won' },
    lose: { from: ['needs_response', 'under_review'], to: 'lost' },
  },
});

export type DisputeState = (typeof disputeMachine.states)[number];
export type DisputeEvent = keyof typeof disputeMachine.transitions;

/** The states of an inquiry (nothing is debited while a dispute is in one). */
export const WARNING_STATES: readonly DisputeState[] = [
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
];
