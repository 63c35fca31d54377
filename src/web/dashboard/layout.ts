import { html } from 'hono/html';
import { getClock } from '../../modules/clock/clock.service.ts';
import { nextSettlement } from '../../modules/clock/clock.settlement.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { bankTime, bankTimeParts } from '../bank-time.ts';
import { FAVICON_LINK } from '../favicon.ts';
import { type DashContext, dashboardContext } from './session.ts';
import { csrfField, type Flash, flashMessages, type Html, takeFlash, when } from './ui.ts';

/** The sections of the navigation, in order: [path, label, key]. */
const NAV: [string, string, string][] = [
  ['/dashboard', 'Home', 'home'],
  ['/dashboard/transactions', 'Transactions', 'transactions'],
  ['/dashboard/try', 'Try it', 'try'],
  ['/dashboard/collections/new', 'Collect', 'collect'],
  ['/dashboard/card_payments/new', 'Card payment', 'card_payment'],
  ['/dashboard/transfers/new', 'Transfer', 'transfer'],
  ['/dashboard/payouts/new', 'Payout', 'payout'],
  ['/dashboard/inbound_transfers', 'Inbound', 'inbound'],
  ['/dashboard/payment_requests', 'Requests for payment', 'payment_requests'],
  ['/dashboard/disputes', 'Disputes', 'disputes'],
  ['/dashboard/statements', 'Statements', 'statements'],
  ['/dashboard/expected_payments', 'Reconciliation', 'expected_payments'],
  ['/dashboard/counterparties', 'Counterparties', 'counterparties'],
  ['/dashboard/cards', 'Virtual cards', 'cards'],
  ['/dashboard/fx', 'FX', 'fx'],
  ['/dashboard/webhooks', 'Webhooks', 'webhooks'],
  ['/dashboard/events', 'Events', 'events'],
  ['/dashboard/logs', 'Logs', 'logs'],
  ['/dashboard/keys', 'API keys', 'keys'],
];

function head(title: string): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sandbank dashboard</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
${FAVICON_LINK}
<script src="/dashboard/assets/graphql-ws.min.js" defer></script>
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>`;
}

/** The clock panel every signed-in page shows: the merchant's time and the ways to move it. */
async function clockPanel(c: DashContext, svc: ServiceContext): Promise<Html> {
  const clock = await getClock(svc);
  const settlement = await nextSettlement(svc, clock.now);
  const settlesAt = bankTime(settlement.at);
  const back = c.req.path;
  // An advance's button is its body's field (seconds, next); "Go" sends the time of its own form
  // (advance to), so a time typed and left does not ride along with +1 hour; the rest are ops.
  const button = (field: string, value: string, testId: string, label: string, title: string) =>
    html`<button type="submit" name="${field}" value="${value}" class="secondary small" title="${title}" data-testid="clock-${testId}">${label}</button>`;
  const op = (name: string, label: string, title: string) => button('op', name, name, label, title);
  return html`<section class="clock" aria-label="Simulated clock" data-testid="clock-panel">
  <div class="clock-now">
    <span class="muted">Clock</span>
    <strong data-testid="clock-now">${when(clock.now)}</strong>
    <span class="muted" data-testid="clock-now-et">${bankTimeParts(clock.now).et}</span>
    ${clock.frozen ? html`<span class="badge state-frozen">frozen</span>` : html`<span class="badge state-active">running</span>`}
  </div>
  <form method="post" action="/dashboard/clock" id="clock-to-form" hidden>
    ${csrfField(c)}
    <input type="hidden" name="back" value="${back}">
  </form>
  <form method="post" action="/dashboard/clock" class="clock-ops">
    ${csrfField(c)}
    <input type="hidden" name="back" value="${back}">
    ${button('seconds', '3600', 'hour', '+1 hour', 'Advance one hour, running what falls due')}
    ${button('seconds', '86400', 'day', '+1 day', 'Advance one day, running what falls due')}
    ${button(
      'next',
      'settlement',
      'next_settlement',
      'Next settlement',
      settlement.entries > 0
        ? `Advance to ${settlesAt}, when the ${settlement.entries === 1 ? 'ACH entry' : `${settlement.entries} ACH entries`} in flight (standard and Same-Day, credits and debits) will have settled`
        : `No ACH entry is in flight: advance to the next Same-Day ACH settlement, ${settlesAt}`,
    )}
    <span class="clock-to">
      <input type="datetime-local" name="to" form="clock-to-form" step="1" required aria-label="Advance to (UTC)" data-testid="clock-to-input">
      <button type="submit" form="clock-to-form" class="secondary small" title="Advance to this UTC time" data-testid="clock-to">Go</button>
    </span>
    ${clock.frozen ? op('unfreeze', 'Unfreeze', 'Let the clock run again') : op('freeze', 'Freeze', 'Stop the clock')}
    ${op('reset', 'Reset', 'Back to real time, unfrozen')}
  </form>
</section>`;
}

export interface ShellOptions {
  title: string;
  /** The navigation key of the page (highlighted). */
  active?: string;
  /** The flash the page already took (forms fill again from it); taken here otherwise. */
  flash?: Flash | null;
}

/** A signed-in page: header, navigation, clock panel, the last action's messages, then the body. */
export async function shell(c: DashContext, options: ShellOptions, body: Html): Promise<Response> {
  const session = c.get('session');
  if (!session) return c.redirect('/dashboard/login');
  const svc = await dashboardContext(c);
  const flash = options.flash === undefined ? takeFlash(c) : options.flash;
  // On a narrow screen the menu folds behind its toggle (a checkbox: no script needed), naming the page.
  const activeLabel = NAV.find(([, , key]) => key === options.active)?.[1];
  const page = html`<!doctype html>
<html lang="en">
${head(options.title)}
<body data-live="on">
<div class="test-mode" role="status">TEST MODE · Sandbank sandbox · no real money moves</div>
<header class="top">
  <a class="brand" href="/dashboard">Sandbank</a>
  <span class="merchant" data-testid="merchant-name">${session.merchant.name}</span>
  <span class="live-dot" data-live-status title="Live updates">●</span>
  <form method="post" action="/dashboard/logout" class="inline">${csrfField(c)}<button type="submit" class="link" data-testid="sign-out">Sign out</button></form>
</header>
<div class="layout">
<nav class="side" aria-label="Dashboard">
  <input type="checkbox" id="nav-toggle" class="nav-toggle" aria-controls="nav-items">
  <label for="nav-toggle" class="nav-toggle-label" data-testid="menu-toggle">Menu${activeLabel ? html` <span class="muted">· ${activeLabel}</span>` : ''}</label>
  <div class="nav-items" id="nav-items" data-testid="nav-items">
    <ul>${NAV.map(
      ([path, label, key]) =>
        html`<li><a href="${path}" class="${options.active === key ? 'active' : ''}">${label}</a></li>`,
    )}</ul>
    <ul class="dev">
      <li><a href="/graphql" target="_blank" rel="noopener">GraphiQL</a></li>
      <li><a href="/docs" target="_blank" rel="noopener">API docs</a></li>
      <li><a href="/v1/openapi.json" target="_blank" rel="noopener">OpenAPI</a></li>
    </ul>
  </div>
</nav>
<main>
${await clockPanel(c, svc)}
${flashMessages(flash)}
<h1>${options.title}</h1>
${body}
</main>
</div>
</body>
</html>`;
  return c.html(page);
}

/** A page of the signed-out part (sign-in, sign-up): no navigation, no clock. */
export function publicShell(c: DashContext, title: string, body: Html): Response | Promise<Response> {
  return c.html(html`<!doctype html>
<html lang="en">
${head(title)}
<body>
<div class="test-mode" role="status">TEST MODE · Sandbank sandbox · no real money moves</div>
<main class="narrow">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`);
}
