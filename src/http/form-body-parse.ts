import { SandbankError } from '../kernel/errors.ts';

/**
 * A form body's `key=value` pairs read into a tree of text (src/http/form-body.ts describes the
 * rules; its schema-led coercion turns the text into the JSON body's values).
 */

/** At most this many bracket parts in one key (the deepest field of any body has three). */
const MAX_BRACKETS = 16;

const KEY = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const BRACKET = /\[([^[\]]*)\]/g;

export type Tree = Record<string, unknown>;

function formError(message: string, param?: string): SandbankError {
  return new SandbankError('parameter_invalid', { message, ...(param ? { param } : {}) });
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw formError('The form body is not valid: its %-escapes must encode UTF-8 text.');
  }
}

/** Sets an own property, whatever its name (`__proto__` included). */
export function define(target: Tree, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function own(target: Tree, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

export function isTree(value: unknown): value is Tree {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A key as an error message quotes it (a long one cut short). */
function shown(key: string): string {
  return key.length > 80 ? `${key.slice(0, 80)}…` : key;
}

/** The parts of a decoded key: its name, then each bracket's content (empty for `[]`). */
function partsOf(key: string): string[] {
  const match = KEY.exec(key);
  if (!match) {
    throw formError(
      `The form key "${shown(key)}" is malformed: a key is a name followed by [part]s, as in metadata[order] or enabled_events[].`,
    );
  }
  const brackets = [...(match[2] ?? '').matchAll(BRACKET)].map((found) => found[1] ?? '');
  if (brackets.length > MAX_BRACKETS)
    throw formError(`The form key "${shown(key)}" nests deeper than ${MAX_BRACKETS} levels.`);
  if (brackets.slice(0, -1).includes(''))
    throw formError(
      `The form key "${shown(key)}" is malformed: [] may only end a key, as in enabled_events[].`,
    );
  return [match[1] as string, ...brackets];
}

/** Places one `key=value` pair in the tree. */
function place(root: Tree, key: string, value: string): void {
  const parts = partsOf(key);
  let container: Tree | unknown[] = root;
  const path: string[] = [];
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    if (Array.isArray(container)) {
      // Only `[]` reaches a list, and only as the key's end.
      path.push(String(container.length));
      container.push(value);
      return;
    }
    path.push(part);
    const param = path.join('.');
    const existing = own(container, part);
    if (last) {
      if (existing === undefined) {
        define(container, part, value);
        return;
      }
      if (typeof existing === 'string')
        throw formError(
          `${param} is given more than once in the form body; send a list as ${shown(key)}[]=…&${shown(key)}[]=….`,
          param,
        );
      throw formError(`${param} is given both as a value and as [nested] fields in the form body.`, param);
    }
    const wantsList = parts[index + 1] === '';
    if (existing === undefined) {
      const created: Tree | unknown[] = wantsList ? [] : {};
      define(container, part, created);
      container = created;
    } else if (wantsList ? Array.isArray(existing) : isTree(existing)) {
      container = existing as Tree | unknown[];
    } else {
      throw formError(
        typeof existing === 'string'
          ? `${param} is given both as a value and as [nested] fields in the form body.`
          : `${param} is given both as a list (${part}[]) and with [named] fields in the form body.`,
        param,
      );
    }
  }
}

/** A form body's pairs as a tree of text: objects for `[name]`, lists for `[]`. */
export function parseFormBody(text: string): Tree {
  const root: Tree = {};
  if (text.trim().length === 0) return root;
  for (const pair of text.split('&')) {
    if (pair.length === 0) continue;
    const equals = pair.indexOf('=');
    const key = decode(equals === -1 ? pair : pair.slice(0, equals));
    const value = decode(equals === -1 ? '' : pair.slice(equals + 1));
    place(root, key, value);
  }
  return root;
}
