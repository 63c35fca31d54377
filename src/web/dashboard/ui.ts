import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { type CurrencyCode, isCurrencyCode } from '../../kernel/currency.ts';
import { formatDecimal } from '../../kernel/money.ts';
import type { RanJob } from '../../modules/scheduler/scheduler.service.ts';
import { csrfTokenFor, type DashContext } from './session.ts';

/**
 * Building blocks of the dashboard's pages. Every value is interpolated through hono/html's `html`
 * template, which escapes it; `raw` is used only for markup this file writes itself. Pages carry no
 * inline script or style (the Content-Security-Policy forbids both): behaviour lives in
 * /dashboard/assets/dashboard.js, found through data-* attributes.
 */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** 1234567n USD → "12,345.67 USD"; JPY has no decimals. */
export function money(minor: bigint, currency: string): string {
  const code = (isCurrencyCode(currency) ? currency : 'USD') as CurrencyCode;
  const [whole = '0', fraction] = formatDecimal(minor, code).split('.');
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '−' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
}

const NY = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
  timeZoneName: 'short',
});

/** An instant as the dashboard shows it: UTC to the second, New York time on hover. */
export function when(at: Date | null | undefined): Html {
  if (!at) return html`<span class="muted">—</span>`;
  const iso = at.toISOString();
  return html`<time datetime="${iso}" title="${NY.format(at)}">${iso.slice(0, 19).replace('T', ' ')}Z</time>`;
}

export function stateBadge(state: string, liveId?: string): Html {
  return html`<span class="badge state-${state}" data-state ${liveId ? raw(`data-live-state="${escapeAttr(liveId)}"`) : ''}>${state}</span>`;
}

function escapeAttr(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '');
}

/** The hidden CSRF field every form of the dashboard carries. */
export function csrfField(c: DashContext): Html {
  return html`<input type="hidden" name="_csrf" value="${csrfTokenFor(c)}">`;
}

/** A small POST form made of one button (an action on an object). */
export function actionButton(
  c: DashContext,
  action: string,
  label: string,
  options: { className?: string; fields?: Record<string, string>; testId?: string } = {},
): Html {
  return html`<form method="post" action="${action}" class="inline">
  ${csrfField(c)}
  ${Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
  <button type="submit" class="${options.className ?? 'secondary'}" ${options.testId ? raw(`data-testid="${escapeAttr(options.testId)}"`) : ''}>${label}</button>
</form>`;
}

/** A definition list of label → value rows (values are escaped unless they are Html already). */
export function details(rows: [string, unknown][]): Html {
  return html`<dl class="details">${rows.map(
    ([label, value]) =>
      html`<dt>${label}</dt><dd>${value === null || value === undefined || value === '' ? html`<span class="muted">—</span>` : value}</dd>`,
  )}</dl>`;
}

/** A JSON value shown as indented text (escaped, as everything else). */
export function jsonBlock(value: unknown): Html {
  return html`<pre class="json">${JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}</pre>`;
}

// ---------------------------------------------------------------------------------------------
// Flash: what the last action did, shown once on the next page (kept in memory per browser session)

export interface Flash {
  notice?: string;
  error?: string;
  /** The form's values, to fill it again after an error. */
  form?: Record<string, string>;
  /** The due work a clock move ran. */
  ran?: RanJob[];
  /** The steps of the fixture just applied, one line each. */
  fixtureSteps?: string[];
  /**
   * Secrets the next page shows once and never again (new API keys, a virtual card's number and
   * CVC, a webhook signing secret): kept only in this process's memory until that page takes them.
   */
  once?: Record<string, string>;
}

const flashes = new Map<string, Flash>();
const FLASH_MAX = 5_000;

function flashKey(c: DashContext): string | null {
  return c.get('sessionToken');
}

export function setFlash(c: DashContext, flash: Flash): void {
  const key = flashKey(c);
  if (!key) return;
  flashes.delete(key);
  flashes.set(key, flash);
  // The oldest untaken flash goes first when too many browsers left one behind.
  if (flashes.size > FLASH_MAX) flashes.delete(flashes.keys().next().value as string);
}

export function takeFlash(c: DashContext): Flash | null {
  const key = flashKey(c);
  if (!key) return null;
  const flash = flashes.get(key) ?? null;
  flashes.delete(key);
  return flash;
}

/** A form value: what was sent last time (after an error), else the default. */
export function formValue(flash: Flash | null, name: string, fallback = ''): string {
  return flash?.form?.[name] ?? fallback;
}

export function flashMessages(flash: Flash | null): Html {
  if (!flash) return html``;
  return html`${flash.error ? html`<div class="error" role="alert" data-testid="flash-error">${flash.error}</div>` : ''}
${flash.notice ? html`<div class="notice" role="status" data-testid="flash-notice">${flash.notice}</div>` : ''}
${
  flash.ran
    ? html`<div class="notice" role="status" data-testid="clock-moved"><strong>The clock moved.</strong> ${
        flash.ran.length === 0
          ? 'Nothing was due on the way.'
          : html`${flash.ran.length} piece${flash.ran.length === 1 ? '' : 's'} of due work ran:<ul class="ran">${flash.ran.map(
              (job) =>
                html`<li>${when(job.dueAt)} <code>${job.kind}</code> ${objectLink(job.objectId)}${job.state === 'failed' ? html` <span class="badge state-failed">failed</span> ${job.error ?? ''}` : ''}</li>`,
            )}</ul>`
      }</div>`
    : ''
}`;
}

/** Where the dashboard shows an object, by its id's prefix. */
export function objectPath(id: string): string | null {
  const prefix = id.slice(0, id.indexOf('_'));
  switch (prefix) {
    case 'col':
    case 'cp':
    case 'tr':
    case 'po':
    case 'iauth':
    case 'fxc':
    case 'fxs':
      return `/dashboard/transactions/${encodeURIComponent(id)}`;
    case 'vc':
      return `/dashboard/cards/${encodeURIComponent(id)}`;
    case 'fxq':
      return `/dashboard/fx/quotes/${encodeURIComponent(id)}`;
    case 'itr':
      return `/dashboard/inbound_transfers/${encodeURIComponent(id)}`;
    case 'we':
      return `/dashboard/webhooks/${encodeURIComponent(id)}`;
    case 'cpty':
      return `/dashboard/counterparties/${encodeURIComponent(id)}`;
    case 'evt':
      return `/dashboard/events/${encodeURIComponent(id)}`;
    case 'dp':
      return `/dashboard/disputes/${encodeURIComponent(id)}`;
    case 'rfp':
      return `/dashboard/payment_requests/${encodeURIComponent(id)}`;
    case 'stmt':
      return '/dashboard/statements';
    case 'req':
      return `/dashboard/logs/${encodeURIComponent(id)}`;
    default:
      return null;
  }
}

export function objectLink(id: string | null | undefined): Html {
  if (!id) return html`<span class="muted">—</span>`;
  const path = objectPath(id);
  return path ? html`<a href="${path}" class="mono">${id}</a>` : html`<span class="mono">${id}</span>`;
}
