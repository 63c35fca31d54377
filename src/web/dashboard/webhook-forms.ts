import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { listRecipes } from '../../modules/trigger/trigger.service.ts';
import { ALL_EVENTS, eventTypeGroups } from '../../modules/webhooks/webhooks.event-types.ts';
import type { EndpointRow } from '../../modules/webhooks/webhooks.service.ts';
import type { DashContext } from './session.ts';
import { csrfField, type Flash, formValue, type Html } from './ui.ts';

/**
 * The webhook pages' forms: create and edit an endpoint (url, description, the events picker,
 * enabled) and trigger an event, with how each form is read into the body of its operation.
 */

/** The webhook pages' paths: the list, an endpoint's page, its delivery log fragment. */
export const LIST = '/dashboard/webhooks';
export const endpointPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
export const fragmentPath = (id: string) =>
  `/dashboard/fragments/webhooks/${encodeURIComponent(id)}/deliveries`;

// ---------------------------------------------------------------------------------------------
// Reading the forms

/** The event types a form chose: its checkboxes and the free-text field (comma or space separated). */
export async function chosenEvents(c: DashContext, form: Record<string, string>): Promise<string[]> {
  const checked = (await c.req.parseBody({ all: true })).events;
  const boxes = (Array.isArray(checked) ? checked : [checked]).filter(
    (value): value is string => typeof value === 'string',
  );
  const typed = (form.extra_events ?? '').split(/[\s,]+/).filter(Boolean);
  return [...new Set([...boxes, ...typed])];
}

/** The form as the flash keeps it for a refill: the chosen events space-separated, the token left out. */
export function refill(form: Record<string, string>, events: string[]): Record<string, string> {
  const { _csrf: _token, ...rest } = form;
  return { ...rest, events: events.join(' ') };
}

/** The REST body of POST /v1/webhook_endpoints from the create form. */
export function createBody(form: Record<string, string>, events: string[]) {
  return {
    url: (form.url ?? '').trim(),
    enabled_events: events,
    ...(form.description ? { description: form.description } : {}),
  };
}

/**
 * The REST body of POST /v1/webhook_endpoints/{id} from the edit form: a blank description clears
 * it; `enabled` only when the box changed (saving a disabled endpoint keeps why it was disabled).
 */
export function updateBody(form: Record<string, string>, events: string[]) {
  const enabled = form.enabled === 'true';
  const changed = form.was_enabled === undefined || (form.was_enabled === 'true') !== enabled;
  return {
    url: (form.url ?? '').trim(),
    enabled_events: events,
    description: form.description ? form.description : null,
    ...(changed ? { enabled } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering the forms

/** The events picker: "*" and every type the code emits (grouped by object), plus a free-text field. */
function eventPicker(selected: string[]): Html {
  const known = new Set(eventTypeGroups().flatMap((group) => group.types));
  const others = selected.filter((type) => type !== ALL_EVENTS && !known.has(type));
  const box = (type: string, label: string) =>
    html`<label><input type="checkbox" name="events" value="${type}" ${selected.includes(type) ? html`checked` : ''} data-testid="event-${type === ALL_EVENTS ? 'all' : type}"> ${label}</label>`;
  return html`<fieldset data-testid="event-types">
  <legend>Events</legend>
  ${box(ALL_EVENTS, '* — every event, including types added later')}
  <div class="grid">${eventTypeGroups().map(
    (group) =>
      html`<div><h3>${group.object}</h3><div class="row">${group.types.map((type) =>
        box(type, type.slice(group.object.length + 1)),
      )}</div></div>`,
  )}</div>
  <label for="f-extra_events">Other types <span class="muted small">comma-separated, e.g. collection.succeeded</span></label>
  <input id="f-extra_events" name="extra_events" value="${others.join(', ')}" autocomplete="off" data-testid="field-extra_events">
</fieldset>`;
}

/** The events a form shows checked: the refilled choice after an error, else `fallback`. */
function selectedEvents(flash: Flash | null, fallback: string[]): string[] {
  const refilled = flash?.form?.events;
  return refilled === undefined ? fallback : refilled.split(' ').filter(Boolean);
}

function urlAndDescription(flash: Flash | null, endpoint: EndpointRow | null): Html {
  return html`<div class="row">
  <div><label for="f-url">URL</label><input id="f-url" name="url" type="url" required maxlength="2048" placeholder="http://localhost:3000/webhooks" value="${formValue(flash, 'url', endpoint?.url ?? '')}" data-testid="field-url"></div>
  <div><label for="f-description">Description</label><input id="f-description" name="description" maxlength="500" value="${formValue(flash, 'description', endpoint?.description ?? '')}" data-testid="field-description"></div>
</div>`;
}

export function createForm(c: DashContext, flash: Flash | null): Html {
  return html`<form method="post" action="${LIST}" data-testid="endpoint-create-form">
  ${csrfField(c)}
  ${urlAndDescription(flash, null)}
  ${eventPicker(selectedEvents(flash, [ALL_EVENTS]))}
  <button type="submit" data-testid="endpoint-create">Add the endpoint</button>
</form>`;
}

export function editForm(c: DashContext, flash: Flash | null, endpoint: EndpointRow): Html {
  const enabled = flash?.form ? flash.form.enabled === 'true' : endpoint.enabled;
  return html`<form method="post" action="${endpointPath(endpoint.id)}" data-testid="endpoint-edit-form">
  ${csrfField(c)}
  ${urlAndDescription(flash, endpoint)}
  <input type="hidden" name="was_enabled" value="${String(endpoint.enabled)}">
  <label><input type="checkbox" name="enabled" value="true" ${enabled ? html`checked` : ''} data-testid="field-enabled"> Enabled (a disabled endpoint receives nothing)</label>
  ${eventPicker(selectedEvents(flash, endpoint.enabledEvents))}
  <button type="submit" data-testid="endpoint-save">Save</button>
</form>`;
}

/** The trigger form: a select of every event type and its overrides as `key=value` words. */
export function triggerForm(c: DashContext, flash: Flash | null): Html {
  const chosen = formValue(flash, 'type', 'collection.succeeded');
  return html`<form method="post" action="${LIST}/trigger" data-testid="trigger-form">
  ${csrfField(c)}
  <div><label for="f-trigger-type">Event type</label>
  <select id="f-trigger-type" name="type" data-testid="trigger-type">${listRecipes().map(
    (recipe) =>
      html`<option value="${recipe.type}" ${recipe.type === chosen ? 'selected' : ''} title="${recipe.drives}">${recipe.type}</option>`,
  )}</select></div>
  <div><label for="f-trigger-set">Overrides</label><input id="f-trigger-set" name="set" maxlength="2000" placeholder="amount=12.50 return_code=R01 metadata.order=A-1" value="${formValue(flash, 'set', '')}" data-testid="trigger-set"></div>
  <button type="submit" data-testid="trigger-submit">Trigger</button>
</form>`;
}

/** `key=value` words (space or comma separated) as overrides; a word without `=` is refused. */
export function overridesOf(text: string): Record<string, string> {
  const set: Record<string, string> = {};
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    const at = word.indexOf('=');
    if (at < 1)
      throw new SandbankError('parameter_invalid', {
        param: 'set',
        message: `Overrides are key=value words (got ${word.slice(0, 60)}).`,
      });
    set[word.slice(0, at)] = word.slice(at + 1);
  }
  return set;
}
