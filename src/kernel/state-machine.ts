import { SandbankError } from './errors.ts';

/**
 * States and transitions as data (house rule: state machines are data, docs/internals/house-rules.md). A machine maps each event to the states it
 * may start from and the state it leads to; transition() checks one step and names the object,
 * its state and the states that would allow the operation when the step is not allowed.
 */
export interface Transition<S extends string> {
  from: readonly S[];
  to: S;
}

export interface Machine<S extends string, E extends string> {
  object: string;
  states: readonly S[];
  initial: S;
  final: readonly S[];
  transitions: Record<E, Transition<S>>;
}

export function defineMachine<const S extends string, const E extends string>(
  machine: Machine<S, E>,
): Machine<S, E> {
  for (const [event, step] of Object.entries<Transition<S>>(machine.transitions)) {
    for (const state of [...step.from, step.to]) {
      if (!machine.states.includes(state))
        throw new Error(`${machine.object}.${event} names unknown state ${state}`);
    }
  }
  return machine;
}

/** Whether `value` names one of `states` (a list filtered by any other state matches nothing). */
export function isStateOf<S extends string>(states: readonly S[], value: string): value is S {
  return (states as readonly string[]).includes(value);
}

export function canTransition<S extends string, E extends string>(
  machine: Machine<S, E>,
  from: S,
  event: E,
): boolean {
  return machine.transitions[event].from.includes(from);
}

/** The state `event` leads to from `from`, or a 409 invalid_state error. */
export function transition<S extends string, E extends string>(machine: Machine<S, E>, from: S, event: E): S {
  const step = machine.transitions[event];
  if (!step.from.includes(from)) throw invalidState(machine, from, event);
  return step.to;
}

export function invalidState<S extends string, E extends string>(
  machine: Machine<S, E>,
  from: S,
  event: E,
): SandbankError {
  const allowed = machine.transitions[event].from.join(', ');
  return new SandbankError('invalid_state', {
    message: `This ${machine.object} is ${from}; ${event} needs it to be ${allowed}.`,
  });
}
