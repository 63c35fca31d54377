import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { ServiceContext } from '../../modules/context.ts';
import { TriggerEventSchema } from '../../modules/trigger/trigger.resource.ts';
import { triggerEvent } from '../../modules/trigger/trigger.service.ts';
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
import { conformanceSection } from './conformance.ts';
import { redeliveryOutcome } from './deliveries.ts';
import { bodyOfForm, cursorOf, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formFieldsOf, formOf } from './session.ts';
import { type Flash, type Html, takeFlash } from './ui.ts';
import {
  createForm,
  editForm,
  endpointPath,
  fragmentPath,
  LIST,
  refill,
  triggerForm,
} from './webhook-forms.ts';
import { deliveryLog, endpointCard, endpointTable } from './webhook-views.ts';

/**
 * Webhook endpoints: the list with a create form, and each endpoint's page — edit (url,
 * description, events, enabled), rotate the secret, send a test event, delete — with its delivery
 * log: every delivery's attempts (clock time, HTTP status or error, duration, response excerpt) and
 * a redeliver button, refreshed live. The signing secret is shown once, after create and rotate.
 * The forms are in webhook-forms.ts, the endpoint's card and delivery log in webhook-views.ts.
 */

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
  <p class="muted">Produces an event of the chosen type by driving real objects through their own operations (a collection paid, a transfer returned…), so the ledger and every related event stay consistent. Some types advance this merchant's clock. See docs/guide/trigger.md.</p>
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
${await conformanceSection(c, svc, endpoint.id)}
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
  const form = await formFieldsOf(c);
  return revealingSecret(c, LIST, refill(form), async (svc) => ({
    row: await createEndpoint(svc, bodyOfForm(createEndpointSchema, form, endpointFieldCodes)),
    notice: 'Endpoint added.',
  }));
}

async function update(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const form = await formFieldsOf(c);
  return submitForm(c, refill(form), endpointPath(id), async () => {
    const svc = await dashboardContext(c);
    const input = bodyOfForm(updateEndpointSchema, form, endpointFieldCodes);
    const row = await updateEndpoint(svc, id, input);
    return { to: endpointPath(row.id), notice: 'Endpoint saved.' };
  });
}

async function trigger(c: DashContext): Promise<Response> {
  const form = await formOf(c);
  const { _csrf: _token, ...kept } = form;
  return submitForm(c, kept, LIST, async () => {
    const input = bodyOfForm(TriggerEventSchema, form);
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
    // The endpoint is the page's: the body names it as POST /v1/events/{id}/redeliver's does.
    const input = bodyOfForm(redeliverSchema, { endpoint_id: id });
    const logs = await redeliverEventNow(svc, eventId, input);
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
