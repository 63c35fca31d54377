import { defineMachine, type Machine } from '../../kernel/state-machine.ts';

/**
 * The rail engine moves every entry with the same events; each kind of entry names its states its
 * own way. ACH and Same-Day ACH: `submit` at the window's cut-off, `settle` at its settlement,
 * `return_unsettled` / `return` when the RDFI sends the entry back before / after settlement,
 * `cancel` before submission; `dishonor_return` when the ODFI refuses a return (R61-R70),
 * `contest_dishonored_return` when the RDFI contests that refusal (R71-R77). RTP: `complete` or
 * `reject` seconds after sending.
 */
type AchEvent =
  | 'submit'
  | 'settle'
  | 'return_unsettled'
  | 'return'
  | 'cancel'
  | 'dishonor_return'
  | 'contest_dishonored_return';
type RtpEvent = 'complete' | 'reject';
type WireEvent = 'complete' | 'cancel' | 'return';

/**
 * ACH and Same-Day ACH transfers: pending → submitted → settled, then possibly returned
 * (a return may also come before settlement); pending → canceled before submission. A return of a
 * settled entry may be dishonored by the ODFI (return_dishonored), and that dishonor contested by
 * the RDFI (return_contested).
 */
export const achTransferMachine = defineMachine({
  object: 'transfer',
  states: [
    'pending',
    'submitted',
    'settled',
    'returned',
    'canceled',
    'return_dishonored',
    'return_contested',
  ],
  initial: 'pending',
  final: ['canceled', 'return_contested'],
  transitions: {
    submit: { from: ['pending'], to: 'submitted' },
    settle: { from: ['submitted'], to: 'settled' },
    return_unsettled: { from: ['submitted'], to: 'returned' },
    return: { from: ['settled'], to: 'returned' },
    cancel: { from: ['pending'], to: 'canceled' },
    dishonor_return: { from: ['returned'], to: 'return_dishonored' },
    contest_dishonored_return: { from: ['return_dishonored'], to: 'return_contested' },
  },
}) satisfies Machine<string, AchEvent>;

/** RTP transfers: pending → completed | rejected within seconds; irrevocable once completed. */
export const rtpTransferMachine = defineMachine({
  object: 'RTP transfer',
  states: ['pending', 'completed', 'rejected'],
  initial: 'pending',
  final: ['completed', 'rejected'],
  transitions: {
    complete: { from: ['pending'], to: 'completed' },
    reject: { from: ['pending'], to: 'rejected' },
  },
}) satisfies Machine<string, RtpEvent>;

/**
 * Payouts over ACH and Same-Day ACH: pending → in_transit (submitted) → paid (settled);
 * an entry the bank sends back is `failed` while in transit and `returned` once paid;
 * pending → canceled before submission. A return of a paid payout may be dishonored
 * (return_dishonored) and the dishonor contested (return_contested), as for transfers.
 */
export const achPayoutMachine = defineMachine({
  object: 'payout',
  states: [
    'pending',
    'in_transit',
    'paid',
    'failed',
    'returned',
    'canceled',
    'return_dishonored',
    'return_contested',
  ],
  initial: 'pending',
  final: ['failed', 'canceled', 'return_contested'],
  transitions: {
    submit: { from: ['pending'], to: 'in_transit' },
    settle: { from: ['in_transit'], to: 'paid' },
    return_unsettled: { from: ['in_transit'], to: 'failed' },
    return: { from: ['paid'], to: 'returned' },
    cancel: { from: ['pending'], to: 'canceled' },
    dishonor_return: { from: ['returned'], to: 'return_dishonored' },
    contest_dishonored_return: { from: ['return_dishonored'], to: 'return_contested' },
  },
}) satisfies Machine<string, AchEvent>;

/** RTP payouts: pending → paid | failed within seconds (an instant payment has no batch in transit). */
export const rtpPayoutMachine = defineMachine({
  object: 'RTP payout',
  states: ['pending', 'paid', 'failed'],
  initial: 'pending',
  final: ['paid', 'failed'],
  transitions: {
    complete: { from: ['pending'], to: 'paid' },
    reject: { from: ['pending'], to: 'failed' },
  },
}) satisfies Machine<string, RtpEvent>;

/**
 * Wire transfers (Fedwire): pending (waiting for the operating day) → completed, settled at once and
 * final; pending → canceled before the service processes it; completed → returned when the
 * beneficiary's bank sends the funds back (it cannot credit them, or it honored a recall).
 */
export const wireTransferMachine = defineMachine({
  object: 'wire transfer',
  states: ['pending', 'completed', 'returned', 'canceled'],
  initial: 'pending',
  final: ['returned', 'canceled'],
  transitions: {
    complete: { from: ['pending'], to: 'completed' },
    cancel: { from: ['pending'], to: 'canceled' },
    return: { from: ['completed'], to: 'returned' },
  },
}) satisfies Machine<string, WireEvent>;

/** Wire payouts: pending → paid (at once, final) → returned by the bank; pending → canceled. */
export const wirePayoutMachine = defineMachine({
  object: 'wire payout',
  states: ['pending', 'paid', 'returned', 'canceled'],
  initial: 'pending',
  final: ['returned', 'canceled'],
  transitions: {
    complete: { from: ['pending'], to: 'paid' },
    cancel: { from: ['pending'], to: 'canceled' },
    return: { from: ['paid'], to: 'returned' },
  },
}) satisfies Machine<string, WireEvent>;

export type EntryKind = 'transfer' | 'payout';
/** Every state of an entry, of any kind on any rail (the `state` column holds the kind's own names). */
export type EntryState = (
  | typeof achTransferMachine
  | typeof rtpTransferMachine
  | typeof achPayoutMachine
  | typeof rtpPayoutMachine
  | typeof wireTransferMachine
  | typeof wirePayoutMachine
)['states'][number];
export type AchMachine = Machine<EntryState, AchEvent>;
export type RtpMachine = Machine<EntryState, RtpEvent>;
export type WireMachine = Machine<EntryState, WireEvent>;

const MACHINES = {
  transfer: { ach: achTransferMachine, rtp: rtpTransferMachine, wire: wireTransferMachine },
  payout: { ach: achPayoutMachine, rtp: rtpPayoutMachine, wire: wirePayoutMachine },
} as const satisfies Record<EntryKind, { ach: AchMachine; rtp: RtpMachine; wire: WireMachine }>;

export function achMachineOf(kind: EntryKind): AchMachine {
  return MACHINES[kind].ach;
}

export function rtpMachineOf(kind: EntryKind): RtpMachine {
  return MACHINES[kind].rtp;
}

export function wireMachineOf(kind: EntryKind): WireMachine {
  return MACHINES[kind].wire;
}

/** Every state an entry of this kind can be in, on any rail (for list filters and docs). */
export function statesOf(kind: EntryKind): EntryState[] {
  const { ach, rtp, wire } = MACHINES[kind];
  return [...new Set([...ach.states, ...rtp.states, ...wire.states])];
}

export type AchTransferEvent = AchEvent;
export type RtpTransferEvent = RtpEvent;
export type WireTransferEvent = WireEvent;
