import { html } from 'hono/html';
import type { ServiceContext } from '../../modules/context.ts';
import { ALL_EVENTS } from '../../modules/webhooks/webhooks.event-types.ts';
import { type DeliveryLog, listEndpointDeliveries } from '../../modules/webhooks/webhooks.log.ts';
import type { EndpointRow } from '../../modules/webhooks/webhooks.service.ts';
import { attemptList } from './deliveries.ts';
import { cursorOf, olderLink } from './form-submit.ts';
import type { DashContext } from './session.ts';
import { actionButton, details, type Html, objectLink, stateBadge, when } from './ui.ts';
import { endpointPath } from './webhook-forms.ts';

/**
 * How webhook endpoints show: the list's table, an endpoint's card with its actions, and its
 * delivery log (every delivery's attempts and a redeliver button; the live fragment).
 */

const DELIVERIES_SHOWN = 50;

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

export function endpointTable(endpoints: EndpointRow[]): Html {
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

export function endpointCard(c: DashContext, endpoint: EndpointRow): Html {
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

export async function deliveryLog(c: DashContext, svc: ServiceContext, endpointId: string): Promise<Html> {
  const after = cursorOf(c);
  const page = await listEndpointDeliveries(svc, endpointId, {
    limit: DELIVERIES_SHOWN,
    ...(after ? { starting_after: after } : {}),
  });
  return html`${deliveryLogTable(c, endpointId, page.data, svc.clock.now())}${olderLink(endpointPath(endpointId), page.nextCursor)}`;
}
