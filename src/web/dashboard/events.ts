import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { type EventRow, listEvents } from '../../modules/events/events.service.ts';
import { getEventWithDeliveries } from '../../modules/transactions/transactions.detail.ts';
import { eventTypeGroups } from '../../modules/webhooks/webhooks.event-types.ts';
import type { DeliveryLog } from '../../modules/webhooks/webhooks.log.ts';
import { eventResource } from '../../modules/webhooks/webhooks.payloads.ts';
import { redeliverEventNow } from '../../modules/webhooks/webhooks.redeliver.ts';
import { redeliverSchema } from '../../modules/webhooks/webhooks.schema.ts';
import { listEndpoints } from '../../modules/webhooks/webhooks.service.ts';
import { attemptList, redeliveryOutcome } from './deliveries.ts';
import { bodyOfForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, dashboardPath, formOf } from './session.ts';
import { csrfField, type Html, objectLink, setFlash, stateBadge, when } from './ui.ts';

/**
 * The events pages: the merchant's recent events (filter by type), one event's JSON as webhooks
 * carry it with each delivery and its attempts, and redelivery (to every subscribed endpoint or
 * one). The delivery log and the redeliver form are shared with the transaction pages.
 */

/** JSON text indented for reading, digits kept exactly as written (100.50 stays 100.50). */
export function prettyJson(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (const ch of text) {
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '{' || ch === '[') {
      depth += 1;
      out += ch + newline();
    } else if (ch === '}' || ch === ']') {
      depth -= 1;
      out += newline() + ch;
    } else if (ch === ',') out += ch + newline();
    else if (ch === ':') out += ': ';
    else if (ch.trim() !== '') out += ch;
  }
  return out;
}

/** An event's webhook deliveries, each with its endpoint, state and attempt log. */
export function deliveryLog(logs: DeliveryLog[]): Html {
  if (logs.length === 0)
    return html`<p class="muted small" data-testid="no-deliveries">No webhook delivery: no enabled endpoint subscribed to this type when it happened.</p>`;
  return html`${logs.map(
    (log) => html`<div class="delivery" data-testid="delivery">
  <p>To ${objectLink(log.delivery.endpointId)} ${stateBadge(log.delivery.state)}
  <span class="muted small">${log.delivery.attempts} attempt${log.delivery.attempts === 1 ? '' : 's'}${
    log.delivery.state === 'pending' ? html` · next ${when(log.delivery.nextAttemptAt)}` : ''
  }</span></p>
  ${attemptList(log.attempts)}
</div>`,
  )}`;
}

/** The redeliver form of an event: to every subscribed endpoint, or to the one chosen. */
export function redeliverForm(
  c: DashContext,
  eventId: string,
  back: string,
  endpoints: { id: string; url: string }[] = [],
): Html {
  return html`<form method="post" action="/dashboard/events/${eventId}/redeliver" class="inline" data-testid="redeliver-form">
  ${csrfField(c)}
  <input type="hidden" name="back" value="${back}">
  ${
    endpoints.length
      ? html`<select name="endpoint_id" aria-label="Endpoint" data-testid="redeliver-endpoint">
    <option value="">Every subscribed endpoint</option>
    ${endpoints.map((endpoint) => html`<option value="${endpoint.id}">${endpoint.url}</option>`)}
  </select>`
      : ''
  }
  <button type="submit" class="secondary small" data-testid="redeliver">Redeliver</button>
</form>`;
}

function typeFilter(selected: string): Html {
  return html`<form method="get" action="/dashboard/events" class="filters" data-testid="event-filters">
  <div><label for="type">Type</label>
  <select id="type" name="type" data-testid="event-type-filter">
    <option value="">All types</option>
    ${eventTypeGroups().map(
      (group) =>
        html`<optgroup label="${group.object}">${group.types.map(
          (type) => html`<option value="${type}" ${type === selected ? 'selected' : ''}>${type}</option>`,
        )}</optgroup>`,
    )}
  </select></div>
  <div><button type="submit" data-testid="event-filter-submit">Filter</button></div>
</form>`;
}

function eventTable(rows: EventRow[]): Html {
  if (rows.length === 0) return html`<p class="muted" data-testid="no-events">No events.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="events" data-narrow-hide="4">
<thead><tr><th>Id</th><th>Type</th><th>Object</th><th>Created (clock)</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-testid="event-row">
  <td>${objectLink(row.id)}</td><td><code>${row.type}</code></td><td>${objectLink(row.objectId)}</td><td>${when(row.createdAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function eventsQueryOf(c: DashContext) {
  const type = c.req.query('type') ?? '';
  if (type && !/^[a-z_]{1,40}\.[a-z_]{1,40}$/.test(type))
    throw new SandbankError('parameter_invalid', { param: 'type', message: 'Choose an event type.' });
  const query = parseInput(listQuerySchema, {
    limit: 50,
    ...(c.req.query('starting_after') ? { starting_after: c.req.query('starting_after') } : {}),
  });
  return { ...query, ...(type ? { type } : {}) };
}

/** The list part of the events page (also its live fragment): the table and the pager. */
async function eventsList(c: DashContext): Promise<Html> {
  const type = c.req.query('type') ?? '';
  try {
    const page = await listEvents(await dashboardContext(c), eventsQueryOf(c));
    const first = `/dashboard/events${type ? `?${new URLSearchParams({ type })}` : ''}`;
    const next = page.nextCursor
      ? `/dashboard/events?${new URLSearchParams({ ...(type ? { type } : {}), starting_after: page.nextCursor })}`
      : null;
    return html`${eventTable(page.data)}
<p class="pager">${c.req.query('starting_after') ? html`<a href="${first}">← Newest</a>` : ''}
${next ? html`<a href="${next}" data-testid="next-page">Older →</a>` : ''}</p>`;
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    return html`<div class="error" role="alert" data-testid="filter-error">${error.message}</div>`;
  }
}

/** The same URL with fragment=1: what a live part reloads. */
export function fragmentUrl(c: DashContext): string {
  const params = new URLSearchParams(c.req.query());
  params.set('fragment', '1');
  return `${c.req.path}?${params}`;
}

async function eventsPage(c: DashContext): Promise<Response> {
  if (c.req.query('fragment')) return c.html(await eventsList(c));
  return shell(
    c,
    { title: 'Events', active: 'events' },
    html`<section class="card">${typeFilter(c.req.query('type') ?? '')}</section>
<section class="card" data-live-refresh="${fragmentUrl(c)}" data-live-on="event" data-testid="events-list">${await eventsList(c)}</section>`,
  );
}

async function eventPage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const id = c.req.param('id') ?? '';
  // An unknown id throws resource_not_found: the dashboard's error handler answers the 404 page.
  const [{ event, deliveries }, endpoints] = await Promise.all([
    getEventWithDeliveries(svc, id),
    listEndpoints(svc, { limit: 100 }),
  ]);
  const back = `/dashboard/events/${encodeURIComponent(event.id)}`;
  return shell(
    c,
    { title: `Event ${event.type}`, active: 'events' },
    html`<section class="card">
  ${detailsOf(event)}
  <pre class="json" data-testid="event-json">${prettyJson(toWireJson(eventResource(event)))}</pre>
</section>
<section class="card" data-live-refresh="${back}/fragment" data-live-for="${event.objectId}" data-live-on="event">
  <h2>Webhook deliveries</h2>
  ${deliveryLog(deliveries)}
</section>
<section class="card"><h2>Redeliver</h2>${redeliverForm(c, event.id, back, endpoints.data)}</section>`,
  );
}

function detailsOf(event: EventRow): Html {
  return html`<dl class="details">
  <dt>Id</dt><dd><code>${event.id}</code></dd>
  <dt>Type</dt><dd><code data-testid="event-type">${event.type}</code></dd>
  <dt>Object</dt><dd>${objectLink(event.objectId)}</dd>
  <dt>Created (clock)</dt><dd>${when(event.createdAt)}</dd>
</dl>`;
}

async function redeliver(c: DashContext): Promise<Response> {
  const form = await formOf(c);
  const id = c.req.param('id') ?? '';
  const back = dashboardPath(form.back, `/dashboard/events/${encodeURIComponent(id)}`);
  try {
    const svc = await dashboardContext(c);
    const { back: _back, ...body } = form; // where to go after: the page's, not the body's
    const input = bodyOfForm(redeliverSchema, body);
    const logs = await redeliverEventNow(svc, id, input);
    setFlash(c, redeliveryOutcome(id, logs, form.endpoint_id || undefined));
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    setFlash(c, { error: error.message, form });
  }
  return c.redirect(back, 303);
}

export function registerEventPages(app: Hono<DashEnv>): void {
  app.get('/events', eventsPage);
  app.get('/events/:id', eventPage);
  app.get('/events/:id/fragment', async (c) => {
    try {
      const { deliveries } = await getEventWithDeliveries(await dashboardContext(c), c.req.param('id'));
      return c.html(html`<h2>Webhook deliveries</h2>${deliveryLog(deliveries)}`);
    } catch (error) {
      if (!(error instanceof SandbankError) || error.code !== 'resource_not_found') throw error;
      return c.text('Not found', 404);
    }
  });
  app.post('/events/:id/redeliver', redeliver);
}
