import type { z } from 'zod';
import type { Machine } from '../kernel/state-machine.ts';
import type { ModuleManifest } from './module.ts';

/**
 * The manifests as start-up registered them (registerModules, src/modules/index.ts), for the
 * registries a module reads but may not import the list for: event types and their payloads
 * (webhooks), trigger recipes (trigger), reset kinds (sandbox). What is derived from them is built
 * on first use (`derived`), so the order in which files load and register does not matter.
 */

/**
 * The events of one kind of object, `<object>.<state>`: every state of its machines, except that an
 * object announcing its creation as `<object>.created` is never announced in an initial state no
 * transition leads back to (a collection is `created`, not `pending`). `also` names the changes that
 * are not states (an authorization is `refunded` while it stays `captured`).
 */
export interface EventSource {
  object: string;
  machines: readonly Machine<string, string>[];
  createdEvent: boolean;
  also?: readonly string[];
  /** The schema of the event's `data.object` (the object's Wire). */
  wire: z.ZodType;
  /** Its place in the published list of event types (GET /v1/event_types), unique across modules. */
  order: number;
}

/** A kind of row a sandbox reset deletes: the merchant's rows of `table` (`where` narrows them). */
export interface ResetKindDecl {
  /** The name of its count in the reset's answer (`card_payments`). */
  kind: string;
  table: string;
  where?: string;
  /** The count's description in the answer. */
  description: string;
  /** Its place among the answer's counts, unique across modules. */
  order: number;
  /**
   * Whether the reset locks the merchant's rows of the table before deleting anything (rows a
   * concurrent request could attach new rows to); locked in the answer's order.
   */
  lock?: boolean;
}

let registered: readonly ModuleManifest[] | null = null;
let generation = 0;

/**
 * Registers the list of modules (registerModules); registering another list replaces it, and what
 * was derived from the previous one is built again on its next use (the same list again changes
 * nothing: a schema derived once keeps its identity).
 */
export function registerManifests(modules: readonly ModuleManifest[]): void {
  if (registered === modules) return;
  registered = modules;
  generation++;
}

/** The registered manifests, in the list's order. */
export function registeredModules(): readonly ModuleManifest[] {
  if (!registered)
    throw new Error('no modules registered: registerModules() (src/modules/index.ts) runs first');
  return registered;
}

/** A value built from the registered manifests on first use, and again after they are registered anew. */
export function derived<T>(build: (modules: readonly ModuleManifest[]) => T): () => T {
  let value: T;
  let builtAt = -1;
  return () => {
    if (builtAt !== generation) {
      value = build(registeredModules());
      builtAt = generation;
    }
    return value;
  };
}
