import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { DeliveryRecord } from '../../modules/conformance/conformance.deliver.ts';
import type { ScenarioResult } from '../../modules/conformance/conformance.judge.ts';
import { junitReport } from '../../modules/conformance/conformance.junit.ts';
import { summaryOf } from '../../modules/conformance/conformance.resource.ts';
import { HANDLER_CONTRACT } from '../../modules/conformance/conformance.scenarios.ts';
import { startRunSchema } from '../../modules/conformance/conformance.schema.ts';
import {
  type ConformanceRunRow,
  getRun,
  listRuns,
  startRun,
} from '../../modules/conformance/conformance.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { bodyOfForm, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { sendFile } from './statements.ts';
import { csrfField, type Html, stateBadge, takeFlash, when } from './ui.ts';
import { endpointPath } from './webhook-forms.ts';

/**
 * Webhook conformance in the dashboard: on an endpoint's page, the button that judges its handler
 * and the latest runs; a run's page, with each scenario's outcome, why it failed and the deliveries
 * behind it (refreshed while the run goes on), and its JUnit report. Each calls the service its
 * REST route calls.
 */

const runPath = (endpointId: string, runId: string) =>
  `${endpointPath(endpointId)}/conformance_runs/${runId}`;

const summaryText = (row: ConformanceRunRow) => {
  const s = summaryOf(row);
  return `${s.passed} of ${s.total} passed${s.failed ? `, ${s.failed} failed` : ''}${s.timed_out ? `, ${s.timed_out} timed out` : ''}`;
};

/** The endpoint page's section: judge the handler, and its latest runs. */
export async function conformanceSection(
  c: DashContext,
  svc: ServiceContext,
  endpointId: string,
): Promise<Html> {
  const runs = (await listRuns(svc, endpointId, { limit: 5 })).data;
  return html`<section class="card" data-testid="conformance">
  <h2>Check the handler</h2>
  <p class="muted small">Sends the conformance suite to this endpoint: valid, forged, replayed, duplicated, out-of-order, slow and unknown deliveries of real events of collections it creates, and judges what the handler answers and does. docs/guide/webhook-conformance.md says what a correct handler does.</p>
  <form method="post" action="${endpointPath(endpointId)}/conformance_runs" class="inline" data-testid="conformance-form">
    ${csrfField(c)}
    <label for="conformance-timeout">Timeout (ms)</label>
    <input id="conformance-timeout" name="timeout_ms" value="5000" size="6" data-testid="conformance-timeout">
    <button type="submit" data-testid="conformance-start">Run the checks</button>
  </form>
  ${
    runs.length === 0
      ? html`<p class="muted" data-testid="no-conformance-runs">No runs yet.</p>`
      : html`<div class="table-wrap"><table class="list" data-testid="conformance-runs">
<thead><tr><th>Run</th><th>Started</th><th>State</th><th>Scenarios</th></tr></thead>
<tbody>${runs.map(
          (run) => html`<tr data-testid="conformance-run-row">
  <td><a href="${runPath(endpointId, run.id)}">${run.id}</a></td><td>${when(run.startedAt)}</td>
  <td>${stateBadge(run.state)}</td><td>${summaryText(run)}</td></tr>`,
        )}</tbody></table></div>`
  }
</section>`;
}

function deliveryBlock(record: DeliveryRecord): Html {
  const headers = Object.entries(record.request.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const answer = record.response
    ? `${record.response.status} in ${record.duration_ms} ms\n\n${record.response.body}`
    : `no answer after ${record.duration_ms} ms (${record.error ?? 'no answer'})`;
  return html`<details data-testid="conformance-delivery"><summary>${record.label} · ${record.response ? record.response.status : 'no answer'}</summary>
<pre class="json">POST ${record.sent_at}\n${headers}\n\n${record.request.body}</pre>
<pre class="json">${answer}</pre></details>`;
}

function scenarioRow(result: ScenarioResult): Html {
  return html`<tr data-testid="conformance-scenario" data-id="${result.id}" data-outcome="${result.outcome}">
  <td>${result.group}</td>
  <td><strong>${result.title}</strong><br><span class="muted small">${result.expectation}</span>
    ${result.explanation ? html`<p class="error" data-testid="conformance-explanation">${result.explanation}</p>` : ''}
    ${result.deliveries.map(deliveryBlock)}</td>
  <td>${stateBadge(result.outcome)}</td>
  <td class="num">${result.calls.reads} / ${result.calls.writes}${result.calls.failed_writes ? ` (+${result.calls.failed_writes} failed)` : ''}</td>
</tr>`;
}

async function runPage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const run = await getRun(svc, c.req.param('id') ?? '', c.req.param('run') ?? '');
  return shell(
    c,
    { title: 'Conformance run', active: 'webhooks', flash: takeFlash(c) },
    html`${run.state === 'running' ? html`<meta http-equiv="refresh" content="1">` : ''}
<section class="card" data-testid="conformance-run" data-state="${run.state}">
  <h2>Conformance run ${stateBadge(run.state)}</h2>
  <p>${run.url} · ${summaryText(run)} · seed ${run.seed} · timeout ${run.timeoutMs} ms · started ${when(run.startedAt)}</p>
  <p><a class="button small" href="${runPath(run.endpointId, run.id)}/junit" download data-testid="conformance-junit">JUnit XML</a></p>
  <details><summary>What a correct handler does</summary><ol>${HANDLER_CONTRACT.map((line) => html`<li>${line}</li>`)}</ol></details>
  <div class="table-wrap"><table class="list" data-testid="conformance-scenarios">
  <thead><tr><th>#</th><th>Scenario</th><th>Outcome</th><th class="num">Reads / writes</th></tr></thead>
  <tbody>${(run.scenarios as ScenarioResult[]).map(scenarioRow)}</tbody></table></div>
</section>
<p><a href="${endpointPath(run.endpointId)}">← The endpoint</a></p>`,
  );
}

async function start(c: DashContext): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const form = await formOf(c);
  return submitForm(c, {}, endpointPath(id), async () => {
    const input = bodyOfForm(startRunSchema, { timeout_ms: form.timeout_ms ?? '' });
    const run = await startRun(await dashboardContext(c), id, input);
    return { to: runPath(id, run.id), notice: 'The checks are running; this page refreshes until they end.' };
  });
}

export function registerConformancePages(app: Hono<DashEnv>): void {
  app.post('/webhooks/:id/conformance_runs', start);
  app.get('/webhooks/:id/conformance_runs/:run', runPage);
  app.get('/webhooks/:id/conformance_runs/:run/junit', async (c) => {
    const run = await getRun(await dashboardContext(c), c.req.param('id'), c.req.param('run'));
    return sendFile(c, {
      body: junitReport(run),
      contentType: 'application/xml; charset=utf-8',
      filename: `${run.id}.junit.xml`,
    });
  });
}
