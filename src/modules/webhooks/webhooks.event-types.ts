import type { Machine } from '../../kernel/state-machine.ts';
import { derived, type EventSource } from '../registry.ts';

/**
 * The event types the code can emit, `<object>.<state>`, derived from the objects' state machines
 * (so a state added to a machine shows up here). Each module's manifest declares the kinds of object
 * whose events it emits (`events`, what one declares: EventSource in modules/registry.ts), placed
 * in the published list by their `order`.
 */

/** Every declared kind of object with events, in the published order. */
export const eventSources: () => readonly EventSource[] = derived((modules) => {
  const sources = modules.flatMap((module) => module.events ?? []).sort((a, b) => a.order - b.order);
  const objects = new Set(sources.map((source) => source.object));
  const orders = new Set(sources.map((source) => source.order));
  if (objects.size !== sources.length || orders.size !== sources.length)
    throw new Error("two kinds of events share an object or an order (the manifests' `events`)");
  return sources;
});

/** The wildcard an endpoint subscribes with to receive every type. */
export const ALL_EVENTS = '*';

export interface EventTypeGroup {
  object: string;
  types: string[];
}

/** A machine's states as events: its initial state is dropped when creation is its own event. */
function statesAnnounced(machine: Machine<string, string>, createdEvent: boolean): string[] {
  const reached = new Set(Object.values(machine.transitions).map((step) => step.to));
  return machine.states.filter(
    (state) => !(createdEvent && state === machine.initial && !reached.has(state)),
  );
}

function typesOf(source: EventSource): string[] {
  const states = [
    ...(source.createdEvent ? ['created'] : []),
    ...source.machines.flatMap((machine) => statesAnnounced(machine, source.createdEvent)),
    ...(source.also ?? []),
  ];
  return [...new Set(states)].map((state) => `${source.object}.${state}`);
}

const groups = derived(() =>
  eventSources().map((source) => ({ object: source.object, types: typesOf(source) })),
);

/** Every event type the code can emit, grouped by object (for pickers: the dashboard's checkboxes). */
export function eventTypeGroups(): EventTypeGroup[] {
  return groups().map((group) => ({ object: group.object, types: [...group.types] }));
}

/** Every event type the code can emit (GET /v1/event_types, GraphQL eventTypes). */
export function listEventTypes(): string[] {
  return groups().flatMap((group) => group.types);
}
