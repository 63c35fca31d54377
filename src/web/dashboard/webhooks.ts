import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { TriggerEventSchema } from '../../modules/trigger/trigger.resource.ts';
import { listRecipes, triggerEvent } from '../../modules/trigger/trigger.service.ts';
import { ALL_EVENTS, eventTypeGroups } from '../../modules/webhooks/webhooks.event-types.ts';
import { type DeliveryLog, listEndpointDeliveries } from '../../modules/webhooks/webhooks.log.ts';
import { redeliverEventNow } from '../../modules/webhooks/webhooks.redeliver.ts';
import {
  createEndpointSchema,
  endpointFieldCodes,
  redeliverSchema,
  updateEndpointSchema,
} from '../../modules/webhooks/webhooks.schema.ts';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointRow,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../modules/webhooks/webhooks.service.ts';
import { attemptList, redeliveryOutcome } from './deliveries.ts';
import { cursorOf, olderLink, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import {
  actionButton,
  csrfField,
  details,
  type Flash,
  formValue,
  type Html,
  objectLink,
  stateBadge,
  takeFlash,
  when,
} from './ui.ts';

/**
 * Webhook endpoints: the list with a create form, and each endpoint's page — edit (url,
 * description, events, enabled), rotate the secret, send a test event, delete — with its delivery
 * log: every delivery's attempts (clock time, HTTP status or error, duration, response excerpt) and
 * a redeliver button, refreshed live. The signing secret is shown once, after create and rotate.
 */
const LIST = '/dashboard/webhooks';
const DELIVERIES_SHOWN = 50;

const endpointPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
const fragmentPath = (id: string) => `/dashboard/fragments/webhooks/${encodeURIComponent(id)}/deliveries`;

// ---------------------------------------------------------------------------------------------
// Reading the forms

/** The event types a form chose: its checkboxes and the free-text field (comma or space separated). */
async function chosenEvents(c: DashContext, form: Record<string, string>): Promise<string[]> {
  const checked = (await c.req.parseBody({ all: true })).events;
  const boxes = (Array.isArray(checked) ? checked : [checked]).filter(
    (value): value is string => typeof value === 'string',
  );
  const typed = (form.extra_events ?? '').split(/[\s,]+/).filter(Boolean);
  return [...new Set([...boxes, ...typed])];
}

/** The form as the flash keeps it for a refill: the chosen events space-separated, the token left out. */
function refill(form: Record<string, string>, events: string[]): Record<string, string> {
  const { _csrf: _token, ...rest } = form;
  return { ...rest, events: events.join(' ') };
}

/** The REST body of POST /v1/webhook_endpoints from the create form. */
function createBody(form: Record<string, string>, events: string[]) {
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
function updateBody(form: Record<string, string>, events: string[]) {
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
// The signing secret, shown once

function secretOf(flash: Flash | null): string | null {
  return flash?.once?.secret ?? null;
}

/** A create or rotate: the endpoint's page then shows its new secret once. */
function revealingSecret(
  c: DashContext,
  back: string,
  form: Record<string, string>,
  run: (svc: ServiceContext) => Promise<{ row: EndpointRow; notice: string }>,
): Promise<Response> {
  return submitForm(c, form, back, async () => {
    const { row, notice } = await run(await dashboardContext(c));
    return { to: endpointPath(row.id), notice, once: { secret: row.secret } };
  });
}

function secretOnce(secret: string): Html {
  return html`<section class="card keys-once" data-testid="endpoint-secret-once">
  <h2>Signing secret</h2>
  <p>Copy it now: it is shown only this once (rotate it to get a new one). Receivers verify each delivery with it (Standard Webhooks).</p>
  <code data-testid="endpoint-secret">${secret}</code>
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Rendering endpoints

function enabledBadge(endpoint: EndpointRow): Html {
  return html`<span class="badge state-${endpoint.enabled ? 'active' : 'disabled'}" data-state data-testid="endpoint-state">${endpoint.enabled ? 'enabled' : 'disabled'}</span>`;
}

function eventList(types: string[]): Html {
  return html`<span data-testid="endpoint-events">${types.map((type, i) => html`${i > 0 ? ', ' : ''}<code>${type === ALL_EVENTS ? '* (all events)' : type}</code>`)}</span>`;
}

function health(endpoint: EndpointRow): Html {
  return html`${endpoint.failingSince ? html`failing since ${when(endpoint.failingSince)}` : html`<span class="muted">—</span>`}${endpoint.disabledReason ? html`<div class="small" data-testid="disabled-reason">${endpoint.disabledReason}</div>` : ''}`;
}

function endpointTable(endpoints: EndpointRow[]): Html {
  if (endpoints.length === 0)
    return html`<p class="muted" data-testid="no-endpoints">No endpoints yet: add one below.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="endpoints" data-narrow-hide="3 4">
<thead><tr><th>URL</th><th>State</th><th>Events</th><th>Health</th></tr></thead>
<tbody>${endpoints.map(
    (endpoint) => html`<tr data-testid="endpoint-row">
  <td class="ref"><a href="${endpointPath(endpoint.id)}" data-testid="endpoint-link">${endpoint.url}</a>${endpoint.description ? html`<div class="muted small">${endpoint.description}</div>` : ''}</td>
  <td>${enabledBadge(endpoint)}</td>
  <td>${eventList(endpoint.enabledEvents)}</td>
  <td>${health(endpoint)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

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

function createForm(c: DashContext, flash: Flash | null): Html {
  return html`<form method="post" action="${LIST}" data-testid="endpoint-create-form">
  ${csrfField(c)}
  ${urlAndDescription(flash, null)}
  ${eventPicker(selectedEvents(flash, [ALL_EVENTS]))}
  <button type="submit" data-testid="endpoint-create">Add the endpoint</button>
</form>`;
}

function editForm(c: DashContext, flash: Flash | null, endpoint: EndpointRow): Html {
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

function endpointCard(c: DashContext, endpoint: EndpointRow): Html {
  const path = endpointPath(endpoint.id);
  return html`<section class="card" data-testid="endpoint">
  ${details([
    ['Id', html`<span class="mono">${endpoint.id}</span>`],
    ['URL', html`<span data-testid="endpoint-url">${endpoint.url}</span>`],
    ['State', enabledBadge(endpoint)],
    ['Events', eventList(endpoint.enabledEvents)],
    ['Description', endpoint.description],
    ['Health', health(endpoint)],
    ['Created', when(endpoint.createdAt)],
  ])}
  <div class="actions">
    ${actionButton(c, `${path}/test`, 'Send test event', { testId: 'send-test' })}
    ${actionButton(c, `${path}/rotate`, 'Rotate secret', { testId: 'rotate-secret' })}
    ${actionButton(c, `${path}/delete`, 'Delete', { className: 'danger', testId: 'delete-endpoint' })}
  </div>
</section>`;
}

// ---------------------------------------------------------------------------------------------
// The delivery log

function deliveryRows(c: DashContext, endpointId: string, log: DeliveryLog): Html {
  const { delivery } = log;
  return html`<tbody data-testid="delivery-row" data-delivery="${delivery.id}">
<tr>
  <td>${objectLink(delivery.eventId)}<div><code data-testid="delivery-event-type">${log.eventType}</code></div></td>
  <td><span data-testid="delivery-state">${stateBadge(delivery.state)}</span>
    <div class="small muted"><span data-testid="delivery-attempts">${log.attempts.length}</span> attempt${log.attempts.length === 1 ? '' : 's'}${delivery.state === 'pending' ? html` · next ${when(delivery.nextAttemptAt)}` : ''}</div></td>
  <td>${actionButton(c, `${endpointPath(endpointId)}/redeliver`, 'Redeliver', {
    className: 'secondary small',
    fields: { event_id: delivery.eventId },
    testId: 'redeliver',
  })}</td>
</tr>
<tr><td colspan="3">${attemptList(log.attempts)}</td></tr>
</tbody>`;
}

/**
 * The endpoint's deliveries, newest event first, each with its attempts (the live fragment). While
 * a delivery is due within a minute of clock time, a `data-live-poll-ms` marker asks dashboard.js
 * to fetch the fragment again: attempts are not events, so no event announces them.
 */
export function deliveryLogTable(c: DashContext, endpointId: string, logs: DeliveryLog[], now: Date): Html {
  if (logs.length === 0)
    return html`<p class="muted" data-testid="no-deliveries">Nothing delivered yet. Send a test event, or cause an event this endpoint subscribes to.</p>`;
  const soon = logs.some(
    ({ delivery }) =>
      delivery.state === 'pending' && delivery.nextAttemptAt.getTime() <= now.getTime() + 60_000,
  );
  return html`${soon ? html`<span hidden data-live-poll-ms="2000"></span>` : ''}<div class="table-wrap"><table class="list" data-testid="deliveries">
<thead><tr><th>Event</th><th>State</th><th></th></tr></thead>
${logs.map((log) => deliveryRows(c, endpointId, log))}
</table></div>`;
}

async function deliveryLog(c: DashContext, svc: ServiceContext, endpointId: string): Promise<Html> {
  const after = cursorOf(c);
  const page = await listEndpointDeliveries(svc, endpointId, {
    limit: DELIVERIES_SHOWN,
    ...(after ? { starting_after: after } : {}),
  });
  return html`${deliveryLogTable(c, endpointId, page.data, svc.clock.now())}${olderLink(endpointPath(endpointId), page.nextCursor)}`;
}

/** The trigger form: a select of every event type and its overrides as `key=value` words. */
function triggerForm(c: DashContext, flash: Flash | null): Html {
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
function overridesOf(text: string): Record<string, string> {
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

// ---------------------------------------------------------------------------------------------
// Pages

async function listPage(c: DashContext): Promise<Response> {
  const flash = takeFlash(c);
  const page = await listEndpoints(await dashboardContext(c), { limit: 100 });
  return shell(
    c,
    { title: 'Webhooks', active: 'webhooks', flash },
    html`<section class="card">
  <h2>Endpoints</h2>
  ${endpointTable(page.data)}
</section>
<section class="card">
  <h2>Add an endpoint</h2>
  <p class="muted">Events are POSTed to the URL, signed per Standard Webhooks; a receiver on this machine (localhost) works.</p>
  ${createForm(c, flash)}
</section>
<section class="card">
  <h2>Trigger an event</h2>
  <p class="muted">Produces an event of the chosen type by driving real objects through their own operations (a collection paid, a transfer returned…), so the ledger and every related event stay consistent. Some types advance this merchant's clock. See docs/trigger.md.</p>
  ${triggerForm(c, flash)}
</section>`,
  );
}

async function endpointPage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const endpoint = await getEndpoint(svc, c.req.param('id') ?? ''); // unknown: the 404 page (app.onError)
  const flash = takeFlash(c);
  const secret = secretOf(flash);
  const after = cursorOf(c);
  const fragment = `${fragmentPath(endpoint.id)}${after ? `?after=${encodeURIComponent(after)}` : ''}`;
  return shell(
    c,
    { title: 'Webhook endpoint', active: 'webhooks', flash },
    html`${secret ? secretOnce(secret) : ''}
${endpointCard(c, endpoint)}
<section class="card">
  <h2>Delivery log <span class="muted small">live · newest event first</span></h2>
  <div data-live-refresh="${fragment}" data-live-on="any" data-testid="delivery-log">${await deliveryLog(c, svc, endpoint.id)}</div>
</section>
<section class="card">
  <h2>Edit</h2>
  ${editForm(c, flash, endpoint)}
</section>
<p><a href="${LIST}">← All endpoints</a></p>`,
  );
}

// ---------------------------------------------------------------------------------------------
// Actions

async function create(c: DashContext): Promise<Response> {
  const form = await formOf(c);
  const events = await chosenEvents(c, form);
  return revealingSecret(c, LIST, refill(form, events), async (svc) => ({
    row: await createEndpoint(
      svc,
      parseInput(createEndpointSchema, createBody(form, events), endpointFieldCodes),
    ),
    notice: 'Endpoint added.',
  }));
}

async function update(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const form = await formOf(c);
  const events = await chosenEvents(c, form);
  return submitForm(c, refill(form, events), endpointPath(id), async () => {
    const svc = await dashboardContext(c);
    const input = parseInput(updateEndpointSchema, updateBody(form, events), endpointFieldCodes);
    const row = await updateEndpoint(svc, id, input);
    return { to: endpointPath(row.id), notice: 'Endpoint saved.' };
  });
}

async function trigger(c: DashContext): Promise<Response> {
  const form = await formOf(c);
  const { _csrf: _token, ...kept } = form;
  return submitForm(c, kept, LIST, async () => {
    const input = parseInput(TriggerEventSchema, { type: form.type ?? '', set: overridesOf(form.set ?? '') });
    const result = await triggerEvent(await dashboardContext(c), input);
    return {
      to: LIST,
      notice: `Triggered ${result.event.type} ${result.event.id} on ${result.event.objectId} (the run emitted ${result.events.length} event${result.events.length === 1 ? '' : 's'}: ${result.events.map((e) => e.type).join(', ')}).`,
      keepForm: true,
    };
  });
}

async function rotate(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  return revealingSecret(c, endpointPath(id), {}, async (svc) => ({
    row: await rotateSecret(svc, id),
    notice: 'New signing secret. The previous one also signs deliveries for 24 hours of clock time.',
  }));
}

async function sendTest(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  return submitForm(c, {}, endpointPath(id), async () => {
    const eventId = await sendTestEvent(await dashboardContext(c), id);
    return { to: endpointPath(id), notice: `Sent a webhook.test event (${eventId}); its delivery is below.` };
  });
}

async function remove(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  return submitForm(c, {}, endpointPath(id), async () => {
    const row = await deleteEndpoint(await dashboardContext(c), id);
    return { to: LIST, notice: `Endpoint ${row.url} deleted.` };
  });
}

async function redeliver(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const form = await formOf(c);
  return submitForm(c, {}, endpointPath(id), async () => {
    const eventId = form.event_id ?? '';
    const svc = await dashboardContext(c);
    const logs = await redeliverEventNow(svc, eventId, parseInput(redeliverSchema, { endpoint_id: id }));
    return { to: endpointPath(id), ...redeliveryOutcome(eventId, logs, id) };
  });
}

export function registerWebhookPages(app: Hono<DashEnv>): void {
  app.get('/webhooks', listPage);
  app.post('/webhooks', create);
  app.post('/webhooks/trigger', trigger);
  app.get('/webhooks/:id', endpointPage);
  app.post('/webhooks/:id', update);
  app.post('/webhooks/:id/rotate', rotate);
  app.post('/webhooks/:id/test', sendTest);
  app.post('/webhooks/:id/delete', remove);
  app.post('/webhooks/:id/redeliver', redeliver);
  app.get('/fragments/webhooks/:id/deliveries', async (c) =>
    c.html(await deliveryLog(c, await dashboardContext(c), c.req.param('id'))),
  );
}
