import { html } from 'hono/html';
import type { AttemptRow } from '../../modules/webhooks/webhooks.service.ts';
import { type Html, when } from './ui.ts';

/**
 * A webhook delivery's attempts as the endpoint page and the event pages show them (one rendering,
 * narrow enough for a phone): clock time, result, duration, next retry, error and response excerpt.
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
  ${attempt.nextRetryAt ? html`<span class="muted small">· retry at ${when(attempt.nextRetryAt)}</span>` : ''}
  ${attempt.error ? html`<div class="small muted" data-testid="attempt-error">${attempt.error}</div>` : ''}
  ${responseExcerpt(attempt.responseBody)}
</li>`,
  )}</ol>`;
}
