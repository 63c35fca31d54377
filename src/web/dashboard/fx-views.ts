import { html } from 'hono/html';
import type { ServiceContext } from '../../modules/context.ts';
import { type FxRates, getRates } from '../../modules/fx/fx.pricing.ts';
import { type FxTargetCurrency, formatRate, hourStart } from '../../modules/fx/fx.rates.ts';
import type { FxConversionRow, FxQuoteRow, FxSettlementRow } from '../../modules/fx/fx.resource.ts';
import { getBalances } from '../../modules/ledger/ledger.queries.ts';
import { bankWhen } from '../bank-time.ts';
import { lineChart } from './chart.ts';
import { destinationFields, destinationPicker, FX, quotePath } from './fx-forms.ts';
import type { DashContext } from './session.ts';
import {
  actionButton,
  csrfField,
  details,
  type Flash,
  type Html,
  money,
  objectLink,
  stateBadge,
  when,
} from './ui.ts';

/**
 * What the FX pages show: the rates and their chart, the lists of quotes, conversions and
 * settlements, the foreign balances, and a quote's details with its countdown and actions.
 */

const HOUR_MS = 3_600_000;
/** The chart's span: this many clock hours, the current one last. */
export const CHART_HOURS = 48;

// ---------------------------------------------------------------------------------------------
// Rates and their chart

export function ratesTable(rates: FxRates): Html {
  return html`<div class="table-wrap"><table class="list" data-testid="rates">
<thead><tr><th>USD →</th><th class="num">Mid rate</th><th class="num">Your rate (sell)</th></tr></thead>
<tbody>${rates.rates.map(
    (r) => html`<tr data-testid="rate-${r.targetCurrency}">
  <td>${r.targetCurrency}</td>
  <td class="num mono" data-testid="mid-${r.targetCurrency}">${formatRate(r.mid)}</td>
  <td class="num mono" data-testid="sell-${r.targetCurrency}">${formatRate(r.rate)}</td>
</tr>`,
  )}</tbody></table></div>
${details([
  ['As of', html`<span data-testid="rates-as-of">${when(rates.asOf)}</span>`],
  ['Next change', html`<span data-testid="rates-next-change">${when(rates.nextChangeAt)}</span>`],
  ['Spread', `${formatRate(rates.spread * 100n)}%`],
])}`;
}

/** The rates of each of the last CHART_HOURS clock hours, oldest first (a pure function of time). */
export function hourlyRates(svc: ServiceContext, now: Date): FxRates[] {
  const first = hourStart(now).getTime() - (CHART_HOURS - 1) * HOUR_MS;
  return Array.from({ length: CHART_HOURS }, (_, i) => getRates(svc, new Date(first + i * HOUR_MS)));
}

/**
 * One currency's mid and sell rates over the hours, as steps (a rate holds for its hour), on an axis
 * that need not include zero (the movement is about 1%). The exact decimals become numbers for
 * pixels and the caption only.
 */
export function rateChart(currency: FxTargetCurrency, hours: FxRates[], now: Date): Html {
  const series = (pick: 'mid' | 'rate') =>
    hours.map((h) => {
      const rate = h.rates.find((r) => r.targetCurrency === currency);
      return { at: h.asOf, value: rate ? Number(formatRate(rate[pick])) : 0 };
    });
  const mid = series('mid');
  const sell = series('rate');
  const places = currency === 'JPY' ? 3 : 5;
  return html`<div data-testid="rate-chart-${currency}">${lineChart(
    `USD → ${currency} over the last ${CHART_HOURS} clock hours`,
    [
      { label: `${currency} mid`, color: '#4f46e5', points: mid },
      { label: `${currency} sell`, color: '#f79009', points: sell },
    ],
    { steps: true, until: now, zero: false, format: (v) => v.toFixed(places) },
  )}</div>`;
}

// ---------------------------------------------------------------------------------------------
// Lists

/** A list; `narrowHide` names the columns (from 1) a phone hides, never the state or an amount. */
function table(testId: string, head: string[], rows: Html[], empty: string, narrowHide = '5 6'): Html {
  if (rows.length === 0) return html`<p class="muted" data-testid="${testId}-empty">${empty}</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="${testId}" data-narrow-hide="${narrowHide}">
<thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function quotesTable(rows: FxQuoteRow[]): Html {
  return table(
    'quotes',
    ['Quote', 'State', 'Sell', 'Buy', 'Rate', 'Expires (clock)'],
    rows.map(
      (q) => html`<tr>
  <td>${objectLink(q.id)}</td><td>${stateBadge(q.state)}</td>
  <td class="num">${money(q.sourceAmount, q.sourceCurrency)}</td><td class="num">${money(q.targetAmount, q.targetCurrency)}</td>
  <td class="mono">${q.rate}</td><td>${when(q.expiresAt)}</td>
</tr>`,
    ),
    'No quotes yet.',
  );
}

export function conversionsTable(rows: FxConversionRow[]): Html {
  return table(
    'conversions',
    ['Conversion', 'State', 'Sold', 'Bought', 'Rate', 'Converted'],
    rows.map(
      (v) => html`<tr data-live-row="${v.id}">
  <td>${objectLink(v.id)}</td><td>${stateBadge(v.state, v.id)}</td>
  <td class="num">${money(v.amount, v.currency)}</td><td class="num">${money(v.targetAmount, v.targetCurrency)}</td>
  <td class="mono">${v.rate}</td><td data-testid="converted-at">${bankWhen(v.createdAt)}</td>
</tr>`,
    ),
    'No conversions yet.',
  );
}

export function destinationText(s: FxSettlementRow): string {
  const d = s.destination;
  const account =
    d.type === 'iban' ? `IBAN ${d.country} ••${d.last4}` : `${d.bank_code}-${d.branch_code} ••${d.last4}`;
  return `${d.name} · ${account}`;
}

export function settlementsTable(rows: FxSettlementRow[]): Html {
  return table(
    'settlements',
    ['Settlement', 'State', 'Amount', 'To', 'Funding', 'Paid, failed or expected'],
    rows.map(
      (s) => html`<tr data-live-row="${s.id}">
  <td>${objectLink(s.id)}</td><td>${stateBadge(s.state, s.id)}</td>
  <td class="num">${money(s.amount, s.currency)}</td><td class="ref">${destinationText(s)}</td>
  <td>${s.quoteId ? objectLink(s.quoteId) : 'balance'}</td><td data-testid="settlement-time">${bankWhen(s.failedAt ?? s.paidAt ?? s.expectedPaidAt)}</td>
</tr>`,
    ),
    'No settlements yet.',
    '4 5 6',
  );
}

export async function foreignBalances(svc: ServiceContext): Promise<Html> {
  const balances = (await getBalances(svc)).filter((b) => b.currency !== 'USD');
  if (balances.length === 0) return html`<p class="muted">No EUR, GBP or JPY balance yet: convert first.</p>`;
  return html`<p data-testid="fx-balances">Available: ${balances.map(
    (b, i) =>
      html`${i > 0 ? ' · ' : ''}<strong data-testid="fx-available-${b.currency}">${money(b.available, b.currency)}</strong>`,
  )}</p>`;
}

// ---------------------------------------------------------------------------------------------
// The quote's page

/** 125_000 → "2:05", 3_725_000 → "1:02:05" (what dashboard.js shows, for a page without script). */
function countdownText(ms: number): string {
  if (ms <= 0) return 'expired';
  const seconds = Math.floor(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(seconds % 60)}` : `${m}:${pad(seconds % 60)}`;
}

export function countdown(msLeft: number, running: boolean): Html {
  return html`<span class="countdown" data-testid="quote-countdown" data-countdown-ms="${msLeft}" data-countdown-running="${running ? 'true' : 'false'}">${countdownText(msLeft)}</span>${running ? '' : html` <span class="muted small">(the clock is frozen)</span>`}`;
}

export function quoteDetails(quote: FxQuoteRow, counter: Html | null): Html {
  return details([
    ['Id', html`<span class="mono">${quote.id}</span>`],
    ['State', html`<span data-testid="quote-state">${stateBadge(quote.state)}</span>`],
    ['Rate', html`<span class="mono" data-testid="quote-rate">${quote.rate}</span>`],
    ['Sell rate', html`<span class="mono" data-testid="quote-sell-rate">${quote.sellRate}</span>`],
    ['Mid rate', html`<span class="mono" data-testid="quote-mid-rate">${quote.midRate}</span>`],
    [
      'You sell',
      html`<span data-testid="quote-source">${money(quote.sourceAmount, quote.sourceCurrency)}</span>`,
    ],
    [
      'You buy',
      html`<span data-testid="quote-target">${money(quote.targetAmount, quote.targetCurrency)}</span>`,
    ],
    [
      'Fee (inside the rate)',
      html`<span data-testid="quote-fee">${money(quote.fee, quote.sourceCurrency)}</span>`,
    ],
    ['Fixed side', quote.fixedSide],
    ['Expires (clock)', html`<span data-testid="quote-expires">${when(quote.expiresAt)}</span>`],
    ['Time left', counter],
    ['Used by', quote.usedBy ? objectLink(quote.usedBy) : null],
    ['Created', when(quote.createdAt)],
  ]);
}

export function quoteActions(c: DashContext, flash: Flash | null, quote: FxQuoteRow): Html {
  const currency = quote.targetCurrency as FxTargetCurrency;
  return html`<section class="card">
  <h2>Convert</h2>
  <p>Converts ${money(quote.sourceAmount, quote.sourceCurrency)} of available USD into ${money(quote.targetAmount, currency)} on your ${currency} balance.</p>
  ${actionButton(c, `${quotePath(quote.id)}/convert`, 'Convert', { className: '', testId: 'quote-convert' })}
</section>
<section class="card">
  <h2>Settle abroad</h2>
  <form method="post" action="${quotePath(quote.id)}/settle" id="settle-form" data-testid="settle-form">
    ${csrfField(c)}
    ${destinationFields(flash, currency)}
    ${destinationPicker('settle-form', currency)}
    <button type="submit" data-testid="quote-settle">Settle ${money(quote.targetAmount, currency)} abroad</button>
  </form>
</section>`;
}

export function quoteClosed(quote: FxQuoteRow): Html {
  if (quote.state === 'used')
    return html`<p class="notice" data-testid="quote-used">This quote was used by ${objectLink(quote.usedBy)}.</p>`;
  return html`<p class="error" data-testid="quote-expired">This quote expired at ${when(quote.expiresAt)}; get a new one on the <a href="${FX}">FX page</a>.</p>`;
}
