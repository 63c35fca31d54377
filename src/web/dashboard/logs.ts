import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import type { RequestLogRow } from '../../modules/request-log/request-log.resource.ts';
import { getRequestLog, listRequestLogs } from '../../modules/request-log/request-log.service.ts';
import { prettyJson } from './events.ts';
import { cursorOf } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext } from './session.ts';
import { type Html, when } from './ui.ts';

/**
 * The request log in the dashboard: the merchant's API requests, newest first, as a hosted
 * provider's log shows them (time, method, path, status, operation, source, latency), filtered by
 * status class, path and operation; and one request with its bodies (masked). Each reads the
 * service GET /v1/requests reads. The dashboard's own pages are not API requests: they are not in it.
 */

const BASE = '/dashboard/logs';
const CLASSES = ['2xx', '4xx', '5xx'] as const;

/** A status as a badge: green for 2xx, amber for 4xx, red for 5xx (the state badges' colours). */
function statusBadge(status: number): Html {
  const tone = status >= 500 ? 'failed' : status >= 400 ? 'pending' : 'succeeded';
  return html`<span class="badge state-${tone}" data-testid="log-status">${status}</span>`;
}

interface Filters {
  status: string;
  path: string;
  operation: string;
}

function filtersOf(c: DashContext): Filters {
  return {
    status: c.req.query('status') ?? '',
    path: c.req.query('path') ?? '',
    operation: c.req.query('operation') ?? '',
  };
}

function filterForm(filters: Filters): Html {
  return html`<form method="get" action="${BASE}" class="filters" data-testid="log-filters">
  <div><label for="log-status">Status</label>
  <select id="log-status" name="status" data-testid="log-status-filter">
    <option value="">Any</option>
    ${CLASSES.map((k) => html`<option value="${k}" ${filters.status === k ? 'selected' : ''}>${k}</option>`)}
  </select></div>
  <div><label for="log-path">Path</label><input id="log-path" name="path" placeholder="/v1/card_payments*" value="${filters.path}" data-testid="log-path-filter"></div>
  <div><label for="log-operation">Operation</label><input id="log-operation" name="operation" placeholder="createCardPayment" value="${filters.operation}" data-testid="log-operation-filter"></div>
  <div><button type="submit" data-testid="log-filter-submit">Filter</button></div>
</form>`;
}

function table(rows: RequestLogRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="no-requests">No requests: the API requests of your keys (and of GraphiQL here) show up as they are answered.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="requests" data-narrow-hide="5">
<thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Status</th><th>Operation</th><th>Source</th><th class="num">Latency</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-testid="request-row" data-id="${row.id}">
  <td><a href="${BASE}/${row.id}">${when(row.createdAt)}</a></td>
  <td><code>${row.method}</code></td>
  <td><code>${row.path}</code></td>
  <td>${statusBadge(row.status)}${row.errorCode ? html` <span class="muted small">${row.errorCode}</span>` : ''}</td>
  <td>${row.operation ?? html`<span class="muted">—</span>`}</td>
  <td>${row.source}</td>
  <td class="num">${row.latencyMs} ms</td>
</tr>`,
  )}</tbody></table></div>`;
}

async function listPart(c: DashContext, filters: Filters): Promise<Html> {
  const given = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== ''));
  try {
    const after = cursorOf(c);
    const page = await listRequestLogs(await dashboardContext(c), {
      limit: 50,
      ...given,
      ...(after ? { starting_after: after } : {}),
    });
    const next = page.nextCursor
      ? `${BASE}?${new URLSearchParams({ ...given, after: page.nextCursor })}`
      : null;
    return html`${table(page.data)}
<p class="pager">${after ? html`<a href="${BASE}?${new URLSearchParams(given)}">← Newest</a>` : ''}
${next ? html`<a href="${next}" data-testid="older">Older →</a>` : ''}</p>`;
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    return html`<div class="error" role="alert" data-testid="filter-error">${error.message}</div>`;
  }
}

function body(title: string, text: string | null, testId: string): Html {
  return html`<h3>${title}</h3>${
    text === null
      ? html`<p class="muted" data-testid="${testId}">None.</p>`
      : html`<pre class="json" data-testid="${testId}">${prettyJson(text)}</pre>`
  }`;
}

async function detailPage(c: DashContext): Promise<Response> {
  // An id the merchant has none of throws resource_not_found: the dashboard's 404 page.
  const row = await getRequestLog(await dashboardContext(c), c.req.param('id') ?? '');
  return shell(
    c,
    { title: `${row.method} ${row.path}`, active: 'logs' },
    html`<section class="card"><dl class="details" data-testid="request-details">
  <dt>Request id</dt><dd><code>${row.id}</code></dd>
  <dt>Time</dt><dd>${when(row.createdAt)}</dd>
  <dt>Request</dt><dd><code>${row.method} ${row.path}${row.query ? `?${row.query}` : ''}</code></dd>
  <dt>Status</dt><dd>${statusBadge(row.status)}${row.errorCode ? html` <code data-testid="log-error-code">${row.errorCode}</code>` : ''}</dd>
  <dt>Operation</dt><dd>${row.operation ?? html`<span class="muted">—</span>`}</dd>
  <dt>Source</dt><dd>${row.source}</dd>
  <dt>Idempotency-Key</dt><dd>${row.idempotencyKey ? html`<code>${row.idempotencyKey}</code>` : html`<span class="muted">—</span>`}</dd>
  <dt>Latency</dt><dd>${row.latencyMs} ms</dd>
</dl>
<p class="muted small">Card numbers keep their last four digits; security codes and secrets are masked (docs/guide/request-log.md).</p></section>
<section class="card">${body('Request body', row.requestBody, 'request-body')}${body('Response body', row.responseBody, 'response-body')}</section>
<p><a href="${BASE}">← All requests</a></p>`,
  );
}

export function registerLogPages(app: Hono<DashEnv>): void {
  app.get('/logs', async (c) => {
    const filters = filtersOf(c);
    return shell(
      c,
      { title: 'Logs', active: 'logs' },
      html`<section class="card"><h2>Request log</h2>
<p class="muted small">Every API request of this merchant (REST and GraphQL, refused ones too), newest first, kept for the log's window. GET /v1/requests; <code>sandbank logs tail</code> follows it in a terminal.</p>
${filterForm(filters)}</section>
<section class="card" data-testid="requests-list">${await listPart(c, filters)}</section>`,
    );
  });
  app.get('/logs/:id', detailPage);
}
