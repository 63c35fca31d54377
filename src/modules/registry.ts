import type { ModuleManifest } from './module.ts';

/**
 * The manifests as start-up registered them (registerModules, src/modules/index.ts), for the
 * registries a module reads but may not import the list for: event types and their payloads
 * (webhooks), trigger recipes (trigger), reset kinds (sandbox). What is derived from them is built
 * on first use (`derived`), so the order in which files load and register does not matter.
 */

export type { EventSource, ResetKindDecl } from './module.ts';

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
