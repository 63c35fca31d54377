import { html } from 'hono/html';
import type { z } from 'zod';
import { coerceFormBody, parseFormBody } from '../../http/form-body.ts';
import { define, isTree, type Tree } from '../../http/form-body-parse.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type FieldCodes, parseInput } from '../../kernel/validation.ts';
import type { DashContext } from './session.ts';
import { type Flash, formValue, type Html, setFlash } from './ui.ts';

/**
 * What the dashboard's forms share: the post-redirect-get of a form (parse, call one service,
 * redirect), the reading of a form as its operation's body (bodyOfForm), metadata key/value rows,
 * and the "older" link of a list.
 */

/** Where a form's call sends the browser, what the next page says, and whether it refills the form. */
export interface Outcome {
  to: string;
  notice?: string;
  error?: string;
  /** Refill the form on the next page (a form used again and again, as "simulate authorization"). */
  keepForm?: boolean;
  /** Secrets the next page shows once (Flash.once). */
  once?: Record<string, string>;
}

/**
 * Runs a form's service call: on success the flash says the outcome's notice (or error) and the
 * browser goes to the page it names; on an expected failure (a SandbankError) the flash carries its
 * message and the form's values, and the browser goes back to the form. Other errors propagate.
 */
export async function submitForm(
  c: DashContext,
  form: Record<string, string>,
  back: string,
  run: () => Promise<Outcome>,
): Promise<Response> {
  try {
    const done = await run();
    setFlash(c, {
      ...(done.notice ? { notice: done.notice } : {}),
      ...(done.error ? { error: done.error } : {}),
      ...(done.keepForm ? { form } : {}),
      ...(done.once ? { once: done.once } : {}),
    });
    return c.redirect(done.to, 303);
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    setFlash(c, { error: error.message, form });
    return c.redirect(back, 303);
  }
}

/**
 * A labelled select of [value, label] options, the refilled (or `fallback`) value selected. Its id
 * is its name unless `id` is given (a body's bracket name, as `originator[account_type]`).
 */
export function selectOf(
  flash: Flash | null,
  spec: { name: string; id?: string; label: string; fallback: string; testId: string },
  options: [string, string][],
): Html {
  const chosen = formValue(flash, spec.name, spec.fallback);
  const id = spec.id ?? spec.name;
  return html`<div><label for="${id}">${spec.label}</label>
  <select id="${id}" name="${spec.name}" data-testid="${spec.testId}">${options.map(
    ([value, label]) =>
      html`<option value="${value}" ${value === chosen ? 'selected' : ''}>${label}</option>`,
  )}</select></div>`;
}

/** The key/value rows a metadata editor offers, numbered from 1 (metadata_key_1 … metadata_value_5). */
const METADATA_ROWS = [1, 2, 3, 4, 5] as const;

/**
 * The metadata of a form's `metadata_key_N` / `metadata_value_N` rows; undefined when all are blank.
 * A row is skipped only when both halves are blank: a value without a key goes to the service,
 * which refuses it (nothing typed is dropped silently).
 */
export function metadataFromForm(form: FormFields): Record<string, string> | undefined {
  const metadata: Record<string, string> = {};
  const text = (name: string) => {
    const value = form[name];
    return typeof value === 'string' ? value : '';
  };
  for (const n of METADATA_ROWS) {
    const key = text(`metadata_key_${n}`).trim();
    const value = text(`metadata_value_${n}`);
    if (key !== '' || value !== '') metadata[key] = value;
  }
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** The form's own fields, which are no field of any body. */
const NOT_BODY = /^(_csrf|metadata_(key|value)_\d+|was_.+)$/;

/** A form's fields; a list (`name[]`: a checkbox list) holds every value sent. */
export type FormFields = Record<string, string | readonly string[]>;

/** The null leaves of `blanks` (blank inputs whose field may be null) added to `body`. */
function withNulls(body: Tree, blanks: unknown): Tree {
  if (!isTree(blanks)) return body;
  const out: Tree = { ...body };
  for (const [key, value] of Object.entries(blanks)) {
    const held = Object.hasOwn(out, key) ? out[key] : undefined;
    if (value === null && held === undefined) define(out, key, null);
    else if (isTree(value) && (held === undefined || isTree(held))) {
      const inner = withNulls(isTree(held) ? held : {}, value);
      if (Object.keys(inner).length > 0) define(out, key, inner);
    }
  }
  return out;
}

const PAGE_RULES = { splitText: true, namedEntries: true, utcTimes: true };

/**
 * A form as the body of the operation it performs, read as REST reads a form body
 * (src/http/form-body.ts): bracket names nest (`card[number]`), text becomes a number or a boolean
 * where the schema wants one; then parsed with the operation's schema and codes, as REST parses it.
 * What a page's form adds:
 * - a blank input is left out (a form sends every input, typed or not), or null where its field may
 *   be null (how a form clears a field); a list (`name[]`) keeps its typed values, and is empty when
 *   none was typed (a checkbox list with nothing ticked);
 * - an input sent beside its former value (`was_enabled`, a hidden input holding what the page
 *   showed) is left out when unchanged;
 * - the metadata editor's rows are `metadata`;
 * - coerceFormBody's PageRules: a text where the schema takes a list of text is its words
 *   (`allowed_mccs=5411, 5814`), and a list's entries may be named by a field's value
 *   (`limits[daily][amount]=20`), and a datetime-local's value is UTC (the pages show UTC).
 */
export function bodyOfForm<S extends z.ZodType>(
  schema: S,
  form: FormFields,
  codes?: FieldCodes,
): z.output<S> {
  return parseInput(schema, formBody(schema, form), codes);
}

/**
 * The JSON body a form stands for, read as bodyOfForm reads it but not yet parsed: for a service
 * that parses its body itself (a transaction's actions, each with its own schema).
 */
export function formBody(schema: z.ZodType, form: FormFields): Tree {
  const params = new URLSearchParams();
  const blanks = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (NOT_BODY.test(name) || (Object.hasOwn(form, `was_${name}`) && form[`was_${name}`] === value))
      continue;
    if (typeof value === 'string') (value === '' ? blanks : params).append(name, value);
    else
      for (const one of value.some((v) => v !== '') ? value.filter((v) => v !== '') : [''])
        params.append(name, one);
  }
  const typed = coerceFormBody(schema, parseFormBody(params.toString()), PAGE_RULES);
  const body = withNulls(typed, coerceFormBody(schema, parseFormBody(blanks.toString()), PAGE_RULES));
  const metadata = metadataFromForm(form);
  return metadata ? { ...body, metadata } : body;
}

/** The metadata rows of a form, refilled from the flash after an error. */
export function metadataEditor(flash: Flash | null): Html {
  return html`<fieldset data-testid="metadata-editor"><legend>Metadata <span class="muted small">optional key/value pairs; blank rows are skipped</span></legend>${METADATA_ROWS.map(
    (n) => html`<div class="row">
    <input name="metadata_key_${n}" aria-label="Metadata key ${n}" placeholder="key" maxlength="40" value="${formValue(flash, `metadata_key_${n}`)}">
    <input name="metadata_value_${n}" aria-label="Metadata value ${n}" placeholder="value" maxlength="500" value="${formValue(flash, `metadata_value_${n}`)}">
  </div>`,
  )}</fieldset>`;
}

/** A list's `?after=<id>` cursor (an object id), or undefined. */
export function cursorOf(c: DashContext): string | undefined {
  const after = c.req.query('after');
  return after && /^[A-Za-z0-9_]{1,255}$/.test(after) ? after : undefined;
}

/** The link to a list's next (older) page, when there is one. */
export function olderLink(path: string, nextCursor: string | null): Html {
  if (!nextCursor) return html``;
  return html`<p class="pager"><a href="${path}?after=${encodeURIComponent(nextCursor)}" data-testid="older">Older →</a></p>`;
}

/** A key/value list of metadata (escaped), or a dash when there is none. */
export function metadataList(metadata: Record<string, string>): Html {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return html`<span class="muted">—</span>`;
  return html`<dl class="details" data-testid="metadata">${entries.map(
    ([key, value]) => html`<dt><code>${key}</code></dt><dd>${value}</dd>`,
  )}</dl>`;
}
