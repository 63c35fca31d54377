import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { ServiceContext } from '../../modules/context.ts';
import { getBalances } from '../../modules/ledger/ledger.queries.ts';
import { type Outcome, selectOf, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, type Flash, formValue, type Html, money, objectPath, takeFlash } from './ui.ts';

/**
 * Building blocks of the create-and-try forms (collections, card payments, transfers, payouts):
 * labelled inputs that refill from the flash after an error, the POST handler every form shares,
 * and the available USD balance the money-moving forms show.
 */
export type Form = Record<string, string>;

interface FieldSpec {
  /** The body's name of the field (`counterparty[routing_number]`). */
  name: string;
  /** Its id on the page (label, data-testid `field-<id>`, fill links); its name when not given. */
  id?: string;
  label: string;
  /** The value when the form is fresh (no flash). */
  value?: string;
  required?: boolean;
  placeholder?: string;
  inputmode?: 'numeric' | 'decimal' | 'email' | 'url';
  autocomplete?: string;
}

/** A labelled text input (one form a page). */
export function textField(flash: Flash | null, spec: FieldSpec): Html {
  const id = spec.id ?? spec.name;
  return html`<div><label for="${id}">${spec.label}</label><input id="${id}" name="${spec.name}" value="${formValue(flash, spec.name, spec.value ?? '')}" placeholder="${spec.placeholder ?? ''}" inputmode="${spec.inputmode ?? 'text'}" autocomplete="${spec.autocomplete ?? 'off'}" ${spec.required ? html`required` : ''} data-testid="field-${id}"></div>`;
}

/** A labelled textarea. */
function textArea(flash: Flash | null, spec: { name: string; label: string }): Html {
  return html`<div><label for="${spec.name}">${spec.label}</label><textarea id="${spec.name}" name="${spec.name}" maxlength="1000" data-testid="field-${spec.name}">${formValue(flash, spec.name)}</textarea></div>`;
}

/** The currency select of the USD-only operations. */
function usdField(flash: Flash | null): Html {
  return selectOf(flash, { name: 'currency', label: 'Currency', fallback: 'USD', testId: 'field-currency' }, [
    ['USD', 'USD'],
  ]);
}

/** The amount and currency inputs every money form starts with (and any more inputs of that row). */
export function amountRow(flash: Flash | null, more: Html = html``): Html {
  return html`<div class="row">
      ${textField(flash, { name: 'amount', label: 'Amount', required: true, placeholder: '100.00', inputmode: 'decimal' })}
      ${usdField(flash)}
      ${more}
    </div>`;
}

/** The optional reference and description of a payment or transfer. */
export function labelInputs(flash: Flash | null, referenceLabel = 'Reference (optional)'): Html {
  return html`${textField(flash, { name: 'reference', label: referenceLabel, placeholder: 'order-1001' })}
    ${textArea(flash, { name: 'description', label: 'Description (optional)' })}`;
}

interface FormCardSpec {
  /** The form's id and data-testid (dashboard.js's fillers find it by id). */
  id: string;
  action: string;
  title: string;
  submit: string;
}

/** A card holding one create form: its CSRF field, the fields, the submit button (<id>-submit). */
export function formCard(c: DashContext, spec: FormCardSpec, fields: Html): Html {
  return html`<section class="card">
  <h2>${spec.title}</h2>
  <form id="${spec.id}" method="post" action="${spec.action}" data-testid="${spec.id}">
    ${csrfField(c)}
    ${fields}
    <button type="submit" data-testid="${spec.id}-submit">${spec.submit}</button>
  </form>
</section>`;
}

/**
 * Registers a create form: GET renders `body` (the form and its side card, in a grid) with the flash
 * it took, so the inputs refill; POST is createHandler's.
 */
export function registerForm(
  app: Hono<DashEnv>,
  spec: { path: string; title: string; active: string },
  body: (c: DashContext, flash: Flash | null, svc: ServiceContext) => Promise<Html> | Html,
  create: (svc: ServiceContext, form: Form) => Promise<Outcome>,
  refill?: (form: Form) => Form,
): void {
  const route = spec.path.replace(/^\/dashboard/, '');
  app.get(route, async (c) => {
    const flash = takeFlash(c);
    const svc = await dashboardContext(c);
    return shell(
      c,
      { title: spec.title, active: spec.active, flash },
      html`<div class="grid">${await body(c, flash, svc)}</div>`,
    );
  });
  app.post(route, createHandler(spec.path, create, refill));
}

/** The dashboard page of a created object (its transaction detail page). */
export function detailPath(id: string): string {
  return objectPath(id) ?? '/dashboard/transactions';
}

/** Keeps every field but the CSRF token for the refilled form. */
function withoutToken(form: Form): Form {
  const { _csrf: _token, ...rest } = form;
  return rest;
}

/**
 * The POST handler of a create form (brief rule 3, through submitForm): parse the form, call the
 * one service function inside `create`, redirect to what it made; a SandbankError goes back to the
 * form with its message and the values `refill` keeps.
 */
function createHandler(
  back: string,
  create: (svc: ServiceContext, form: Form) => Promise<Outcome>,
  refill: (form: Form) => Form = (form) => form,
) {
  return async (c: DashContext): Promise<Response> => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, withoutToken(refill(form)), back, () => create(svc, form));
  };
}

/** The merchant's available USD, which credits, payouts and spend draw on. */
export async function availableUsd(svc: ServiceContext): Promise<Html> {
  const usd = (await getBalances(svc)).find((balance) => balance.currency === 'USD');
  return html`<p>Available to send: <strong data-testid="available-usd">${money(usd?.available ?? 0n, 'USD')}</strong>
<span class="muted small">(top up with POST /v1/simulate/balance/top_up)</span></p>`;
}

/** A link that fills fields of the form `formId` through dashboard.js (data-fill); JSON is escaped by html``. */
export function fillLink(formId: string, values: Form, label: string, testId: string): Html {
  return html`<a href="#${formId}" data-fill="${JSON.stringify(values)}" data-fill-form="${formId}" data-testid="${testId}">${label}</a>`;
}
