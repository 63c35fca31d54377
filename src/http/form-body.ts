import type { z } from 'zod';
import { SandbankError } from '../kernel/errors.ts';
import { define, isTree, type Tree } from './form-body-parse.ts';
import {
  allowed,
  elementSchemas,
  fieldSchemas,
  type Place,
  placeOf,
  type Schema,
  takesBoolean,
  takesNumber,
  takesText,
} from './form-body-schema.ts';

export { parseFormBody } from './form-body-parse.ts';

/**
 * Form bodies (`application/x-www-form-urlencoded`) as Stripe's clients send them, read into the
 * object the equivalent JSON body would be, so that one schema judges both:
 *
 * - bracket notation nests: `metadata[order]=1` is `{metadata: {order: "1"}}`, `card[number]=4242…`
 *   is `{card: {number: "4242…"}}`; `enabled_events[]=a&enabled_events[]=b` is a list, and so are
 *   indexed keys `limits[0][amount]=5&limits[1][amount]=9` where the schema takes a list;
 * - every value is text. Where the schema takes a boolean or a number and no text, `true`/`false`
 *   and a number's literal become that boolean or number (`capture=false`, `seconds=60`); anywhere
 *   else the text stays as it is: an amount stays its exact decimal text, as a JSON string amount
 *   does, and `exp_month=12` stays "12", which the card schema takes as it takes 12;
 * - an empty value (`description=`) is null where the field may be null (how a form clears a
 *   field), else the empty string, judged as JSON's "" is;
 * - a plain key given twice (`amount=1&amount=2`), a key given both as a value and with brackets,
 *   a malformed key (`a[b`) or escapes that are not UTF-8 are a 400 parameter_invalid.
 *
 * The pairs become a tree of text in form-body-parse.ts; the coercion below, led by the operation's
 * schema, makes it the JSON body. docs/internals/architecture.md ("Form bodies") gives the reasons.
 */

const MEDIA_TYPE = 'application/x-www-form-urlencoded';

export function isFormMediaType(mediaType: string | undefined): boolean {
  return mediaType === MEDIA_TYPE;
}
// Coercion, led by the operation's schema (its places: form-body-schema.ts).

/** A number's literal that a double writes back identically (the JSON reader's rule for a number). */
function exactNumber(text: string): number | undefined {
  if (!/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return undefined;
  const value = Number(text);
  return String(value) === text ? value : undefined;
}

function coerceText(text: string, at: Place): unknown {
  if (text === '' && at.nullable) return null;
  if (at.alternatives.length === 0 || at.alternatives.some(takesText)) return text;
  if ((text === 'true' || text === 'false') && at.alternatives.some(takesBoolean)) return text === 'true';
  if (at.alternatives.some(takesNumber)) return exactNumber(text) ?? text;
  return text;
}

/** Keys "0" … "n-1", in any order: a list sent by index. */
function indexedList(tree: Tree): unknown[] | undefined {
  const keys = Object.keys(tree);
  const list: unknown[] = [];
  for (const key of keys) {
    const index = Number(key);
    if (!/^(0|[1-9]\d*)$/.test(key) || index >= keys.length) return undefined;
    list[index] = tree[key];
  }
  return list;
}

/**
 * What a page's form adds to the reader (the dashboard's; REST's form bodies never use them):
 * - `splitText`: where the schema takes a list of text, a text is its words, split on commas and
 *   white space, each once (`allowed_mccs=5411, 5814`; a checkbox list and a free-text input of the
 *   same `name[]` give one list);
 * - `namedEntries`: where the schema takes a list of objects, entries may be named rather than
 *   numbered, each name the value of the entry's field that allows it (`limits[daily][amount]=20`
 *   is `{interval: "daily", amount: "20"}`), in the order that field declares its values.
 * With `splitText`, a text where the schema takes a record is its `key=value` words
 * (`set=amount=12.50 return_code=R01`); a word without its key is a 400 parameter_invalid.
 * - `utcTimes`: a date and time without an offset (as a datetime-local input sends it,
 *   `2031-12-03T15:00`), where the schema takes a date-time, is UTC (`2031-12-03T15:00:00Z`).
 */
export interface PageRules {
  splitText?: boolean;
  namedEntries?: boolean;
  utcTimes?: boolean;
}

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A local date and time as UTC, where the place takes a date-time (else the text as it is). */
function utcTime(text: string, at: Place): string {
  if (!LOCAL_TIME.test(text) || !at.alternatives.some((def) => def.format === 'datetime')) return text;
  return `${text.length === 16 ? `${text}:00` : text}Z`;
}

/** Whether the place is a list of text (and takes no text itself). */
function takesTextList(at: Place): boolean {
  if (at.alternatives.some(takesText)) return false;
  return elementSchemas(at, 0).length > 0 && placeOf(elementSchemas(at, 0)).alternatives.some(takesText);
}

/** `key=value` words as a record. */
function pairs(text: string, param: string): Tree {
  const out: Tree = {};
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    const at = word.indexOf('=');
    if (at < 1)
      throw new SandbankError('parameter_invalid', {
        param,
        message: `${param} is key=value words, as in amount=12.50 (got ${word.slice(0, 60)}).`,
      });
    define(out, word.slice(0, at), word.slice(at + 1));
  }
  return out;
}

function words(items: readonly unknown[]): unknown[] {
  const split = items.flatMap((item) => (typeof item === 'string' ? item.split(/[\s,]+/) : [item]));
  return [...new Set(split.filter((item) => item !== ''))];
}

/** Entries named by the value of one of their fields, as a list (undefined when a name fits none). */
function namedEntries(tree: Tree, at: Place): unknown[] | undefined {
  const element = placeOf(elementSchemas(at, 0));
  const entries: [number, unknown][] = [];
  for (const [name, value] of Object.entries(tree)) {
    if (!isTree(value)) return undefined;
    let found: [string, number] | undefined;
    for (const def of element.alternatives)
      for (const [field, schema] of Object.entries(def.type === 'object' ? (def.shape ?? {}) : {})) {
        const order = placeOf([schema]).alternatives.flatMap(allowed).indexOf(name);
        if (order >= 0 && !found) found = [field, order];
      }
    if (!found || Object.hasOwn(value, found[0])) return undefined;
    const entry: Tree = { ...value };
    define(entry, found[0], name);
    entries.push([found[1], entry]);
  }
  return entries.sort((a, b) => a[0] - b[0]).map(([, entry]) => entry);
}

function coerce(value: unknown, schemas: readonly Schema[], rules: PageRules, param = ''): unknown {
  const at = placeOf(schemas);
  const split = rules.splitText === true && takesTextList(at);
  if (typeof value === 'string') {
    if (split) return coerce([value], schemas, rules, param);
    if (
      rules.splitText &&
      !at.alternatives.some(takesText) &&
      at.alternatives.some((d) => d.type === 'record')
    )
      return coerce(pairs(value, param), schemas, rules, param);
    return coerceText(rules.utcTimes ? utcTime(value, at) : value, at);
  }
  if (Array.isArray(value))
    return (split ? words(value) : value).map((item, index) =>
      coerce(item, elementSchemas(at, index), rules, `${param}.${index}`),
    );
  if (!isTree(value)) return value;
  const takesObject = at.alternatives.some((def) => def.type === 'object' || def.type === 'record');
  const takesList = at.alternatives.some((def) => def.type === 'array' || def.type === 'tuple');
  const list =
    takesList && !takesObject
      ? (indexedList(value) ?? (rules.namedEntries ? namedEntries(value, at) : undefined))
      : undefined;
  if (list) return coerce(list, schemas, rules, param);
  const out: Tree = {};
  for (const key of Object.keys(value))
    define(out, key, coerce(value[key], fieldSchemas(at, key), rules, param ? `${param}.${key}` : key));
  return out;
}

/**
 * The form body as the equivalent JSON body: lists sent by index made lists, and text made a
 * boolean, a number or null where `schema` (the operation's body schema) wants one and no text.
 * Without a schema (a path no operation owns) the tree is left as it is. `rules` are a page's.
 */
export function coerceFormBody(schema: z.ZodType | undefined, tree: Tree, rules: PageRules = {}): Tree {
  return schema ? (coerce(tree, [schema], rules) as Tree) : tree;
}
