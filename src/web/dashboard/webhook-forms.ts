import { html } from 'hono/html';
import { listRecipes } from '../../modules/trigger/trigger.service.ts';
import { ALL_EVENTS, eventTypeGroups } from '../../modules/webhooks/webhooks.event-types.ts';
import type { EndpointRow } from '../../modules/webhooks/webhooks.service.ts';
import type { FormFields } from './form-submit.ts';
import type { DashContext } from './session.ts';
import { csrfField, type Flash, formValue, type Html } from './ui.ts';

/**
 * The webhook pages' forms: create and edit an endpoint (url, description, the events picker,
 * enabled) and trigger an event. Their inputs carry the bodies' names, read by bodyOfForm: the
 * picker's checkboxes and its free-text field are all `enabled_events[]` (the free text's words
 * join the ticked boxes; nothing chosen is an empty list, which the schema refuses); the enabled
 * box has a hidden `enabled=false` before it and its former value beside it (`was_enabled`), so it
 * is sent only when changed (saving a disabled endpoint keeps why it was disabled); a blank
 * description clears it; the trigger's overrides are `key=value` words (`set`).
 */

/** The webhook pages' paths: the list, an endpoint's page, its delivery log fragment. */
export const LIST = '/dashboard/webhooks';
export const endpointPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
export const fragmentPath = (id: string) =>
  `/dashboard/fragments/webhooks/${encodeURIComponent(id)}/deliveries`;

// ---------------------------------------------------------------------------------------------
// Reading the forms

/** The name of the events picker's inputs: its checkboxes and its free-text field, one list. */
export const EVENTS = 'enabled_events[]';

/**
 * The form as the flash keeps it for a refill: the chosen events (ticked or typed) space-separated
 * as `events`, the token left out.
 */
export function refill(form: FormFields): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(form))
    if (typeof value === 'string' && name !== '_csrf') kept[name] = value;
  const chosen = form[EVENTS] ?? [];
  const words = (typeof chosen === 'string' ? [chosen] : chosen).flatMap((text) => text.split(/[\s,]+/));
  return { ...kept, events: [...new Set(words.filter(Boolean))].join(' ') };
}

// ---------------------------------------------------------------------------------------------
// Rendering the forms

/** The events picker: "*" and every type the code emits (grouped by object), plus a free-text field. */
function eventPicker(selected: string[]): Html {
  const known = new Set(eventTypeGroups().flatMap((group) => group.types));
  const others = selected.filter((type) => type !== ALL_EVENTS && !known.has(type));
  const box = (type: string, label: string) =>
    html`<label><input type="checkbox" name="${EVENTS}" value="${type}" ${selected.includes(type) ? html`checked` : ''} data-testid="event-${type === ALL_EVENTS ? 'all' : type}"> ${label}</label>`;
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
  <input id="f-extra_events" name="${EVENTS}" value="${others.join(', ')}" autocomplete="off" data-testid="field-extra_events">
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
  <input type="hidden" name="enabled" value="false">
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
