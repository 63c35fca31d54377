import { html } from 'hono/html';
import type { AttemptRow, DeliveryLog } from '../../modules/webhooks/webhooks.log.ts';
import { type Html, when } from './ui.ts';

/**
 * A webhook delivery's attempts as the endpoint page and the event pages show them (one rendering,
 * narrow enough for a phone): clock time, result, duration, webhook chaos, next retry, error and
 * response excerpt.
 */
const EXCERPT_CHARS = 300;

/** A delivery error in words (the transport's message stays beside it). */
function problemOf(error: string): string {
  if (/ECONNREFUSED/.test(error)) return 'connection refused';
  if (/ECONNRESET|socket hang up|other side closed/i.test(error)) return 'connection reset';
  if (/ENOTFOUND|EAI_AGAIN|did not resolve/.test(error)) return 'host not found';
  if (/timeout|aborted/i.test(error)) return 'timed out (15 s)';
  if (/WEBHOOK_BLOCK_PRIVATE_NETWORKS/.test(error)) return 'refused: private network';
  return 'no answer';
}

/** The answer of an attempt: its HTTP status (green for 2xx) or, without one, why not. */
function attemptResult(attempt: AttemptRow): Html {
  const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
  const label = attempt.status ?? (attempt.error ? problemOf(attempt.error) : 'no answer');
  return html`<span class="badge state-${ok ? 'delivered' : 'failed'}" data-testid="attempt-status">${label}</span>`;
}

/** The response body: an excerpt, and the whole kept body (up to 2 KiB) behind a disclosure. */
function responseExcerpt(body: string | null): Html {
  if (!body) return html``;
  if (body.length <= EXCERPT_CHARS)
    return html`<div><code data-testid="attempt-response">${body}</code></div>`;
  return html`<div><code data-testid="attempt-response">${body.slice(0, EXCERPT_CHARS)}…</code></div>
<details><summary class="small">whole response (${body.length} characters)</summary><pre class="json">${body}</pre></details>`;
}

/** A delivery's attempts, oldest first: clock time, result, duration, retry, error and response. */
export function attemptList(attempts: AttemptRow[]): Html {
  if (attempts.length === 0) return html`<p class="muted small">No attempt yet.</p>`;
  return html`<ol class="timeline" data-testid="attempts">${attempts.map(
    (attempt) => html`<li data-testid="attempt-row">
  ${when(attempt.attemptedAt)} ${attemptResult(attempt)} <span class="muted small" data-testid="attempt-duration">${attempt.durationMs} ms</span>
  ${attempt.chaos ? html`<span class="badge" data-testid="attempt-chaos" title="Injected by this merchant's webhook chaos (keys page)">chaos: ${attempt.chaos}</span>` : ''}
  ${attempt.nextRetryAt ? html`<span class="muted small">· retry at ${when(attempt.nextRetryAt)}</span>` : ''}
  ${attempt.error ? html`<div class="small muted" data-testid="attempt-error">${attempt.error}</div>` : ''}
  ${responseExcerpt(attempt.responseBody)}
</li>`,
  )}</ol>`;
}

/**
 * What a redelivery from the dashboard did (its attempts are made at once): how many deliveries
 * of the event now stand delivered and how many are still failing, for one endpoint or all.
 */
export function redeliveryOutcome(
  eventId: string,
  logs: DeliveryLog[],
  endpointId?: string,
): { notice?: string; error?: string } {
  const mine = endpointId ? logs.filter((log) => log.delivery.endpointId === endpointId) : logs;
  if (mine.length === 0)
    return { error: `No enabled endpoint is subscribed to event ${eventId}: nothing was sent.` };
  const delivered = mine.filter((log) => log.delivery.state === 'delivered').length;
  const failing = mine.length - delivered;
  return failing === 0
    ? { notice: `Redelivered event ${eventId}: delivered.` }
    : {
        error: `Redelivered event ${eventId}: ${delivered} delivered, ${failing} still failing (see the attempts; retries follow on the clock).`,
      };
}
