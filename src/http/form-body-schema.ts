import type { z } from 'zod';

/**
 * What an operation's schema says a form body's value may be at one place (src/http/form-body.ts
 * coerces the form's text by it): each alternative with its wrappers (optional, nullable, default,
 * pipe, union…) removed.
 */

export type Schema = z.core.$ZodType;
export interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  getter?: () => Schema;
  options?: readonly Schema[];
  left?: Schema;
  right?: Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  valueType?: Schema;
  element?: Schema;
  items?: readonly Schema[];
  rest?: Schema | null;
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  format?: string;
}

export const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;

/** What a value at one place may be, as the schema says it: each alternative, wrappers removed. */
export interface Place {
  alternatives: Def[];
  nullable: boolean;
}

function collect(schema: Schema, into: Place, depth = 0): void {
  if (depth > 32) return;
  const def = defOf(schema);
  switch (def.type) {
    case 'nullable':
      into.nullable = true;
      if (def.innerType) collect(def.innerType, into, depth + 1);
      return;
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      if (def.innerType) collect(def.innerType, into, depth + 1);
      return;
    case 'pipe':
      if (def.in) collect(def.in, into, depth + 1);
      return;
    case 'lazy':
      if (def.getter) collect(def.getter(), into, depth + 1);
      return;
    case 'union':
      for (const option of def.options ?? []) collect(option, into, depth + 1);
      return;
    case 'intersection':
      if (def.left) collect(def.left, into, depth + 1);
      if (def.right) collect(def.right, into, depth + 1);
      return;
    case 'null':
      into.nullable = true;
      return;
    default:
      into.alternatives.push(def);
  }
}

export function placeOf(schemas: readonly Schema[]): Place {
  const into: Place = { alternatives: [], nullable: false };
  for (const schema of schemas) collect(schema, into);
  return into;
}

/** The values a literal or an enum allows. */
export function allowed(def: Def): unknown[] {
  if (def.type === 'literal') return [...(def.values ?? [])];
  if (def.type === 'enum') return Object.values(def.entries ?? {});
  return [];
}

/** Whether the text may stand as it is: some alternative takes text (or anything). */
export function takesText(def: Def): boolean {
  switch (def.type) {
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'date':
    case 'object':
    case 'record':
    case 'array':
    case 'tuple':
    case 'never':
    case 'undefined':
    case 'void':
      return false;
    case 'literal':
    case 'enum':
      return allowed(def).some((value) => typeof value === 'string');
    default:
      return true;
  }
}

export const takesBoolean = (def: Def) =>
  def.type === 'boolean' || allowed(def).some((value) => typeof value === 'boolean');
export const takesNumber = (def: Def) =>
  def.type === 'number' || allowed(def).some((value) => typeof value === 'number');

export function elementSchemas(at: Place, index: number): Schema[] {
  const found: Schema[] = [];
  for (const def of at.alternatives) {
    if (def.type === 'array' && def.element) found.push(def.element);
    if (def.type === 'tuple') {
      const item = def.items?.[index] ?? def.rest;
      if (item) found.push(item);
    }
  }
  return found;
}

export function fieldSchemas(at: Place, key: string): Schema[] {
  const found: Schema[] = [];
  for (const def of at.alternatives) {
    if (def.type === 'object') {
      const field = def.shape && Object.hasOwn(def.shape, key) ? def.shape[key] : def.catchall;
      if (field && defOf(field).type !== 'never') found.push(field);
    }
    if (def.type === 'record' && def.valueType) found.push(def.valueType);
  }
  return found;
}
