import type { Hono } from 'hono';
import { html } from 'hono/html';
import { parseInput } from '../../kernel/validation.ts';
import { getClock } from '../../modules/clock/clock.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { createConversion, listConversions } from '../../modules/fx/fx.conversions.ts';
import { type FxRates, getRates } from '../../modules/fx/fx.pricing.ts';
import { createQuote, getQuote, listQuotes } from '../../modules/fx/fx.quotes.ts';
import {
  FX_TARGET_CURRENCIES,
  type FxTargetCurrency,
  formatRate,
  hourStart,
} from '../../modules/fx/fx.rates.ts';
import type { FxConversionRow, FxQuoteRow, FxSettlementRow } from '../../modules/fx/fx.resource.ts';
import {
  conversionFieldCodes,
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  quoteFieldCodes,
  settlementFieldCodes,
} from '../../modules/fx/fx.schema.ts';
import { createSettlement, listSettlements } from '../../modules/fx/fx.settlements.ts';
import { getBalances } from '../../modules/ledger/ledger.queries.ts';
import { bankTime, bankWhen } from '../bank-time.ts';
import { lineChart } from './chart.ts';
import { selectOf, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import {
  actionButton,
  csrfField,
  details,
  type Flash,
  formValue,
  type Html,
  money,
  objectLink,
  objectPath,
  stateBadge,
  takeFlash,
  when,
} from './ui.ts';

/**
 * Foreign exchange in the dashboard: the clock's rates and a chart of the last 48
 * clock hours, the quote form, recent quotes, conversions and settlements, a payout out of a
 * EUR/GBP/JPY balance; a quote's page with its countdown to expiry, "Convert" and "Settle abroad".
 * Every form calls the service REST calls with the body REST takes.
 */

const FX = '/dashboard/fx';
const quotePath = (id: string) => `${FX}/quotes/${encodeURIComponent(id)}`;
const HOUR_MS = 3_600_000;
/** The chart's span: this many clock hours, the current one last. */
export const CHART_HOURS = 48;

// ---------------------------------------------------------------------------------------------
// Rates and their chart

function ratesTable(rates: FxRates): Html {
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
function hourlyRates(svc: ServiceContext, now: Date): FxRates[] {
  const first = hourStart(now).getTime() - (CHART_HOURS - 1) * HOUR_MS;
  return Array.from({ length: CHART_HOURS }, (_, i) => getRates(svc, new Date(first + i * HOUR_MS)));
}

/**
 * One currency's mid and sell rates over the hours, as steps (a rate holds for its hour), on an axis
 * that need not include zero (the movement is about 1%). The exact decimals become numbers for
 * pixels and the caption only.
 */
function rateChart(currency: FxTargetCurrency, hours: FxRates[], now: Date): Html {
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
// Forms → the bodies REST takes

function quoteBody(form: Record<string, string>): Record<string, unknown> {
  const amount = (form.amount ?? '').trim();
  const side = form.fixed === 'target' ? 'target_amount' : 'source_amount';
  return {
    target_currency: form.target_currency,
    ...(amount ? { [side]: amount } : {}),
    lock_duration: form.lock_duration,
  };
}

/** A destination of the currency: {name, iban} for EUR/GBP, a Japanese account for JPY. */
function destinationOf(form: Record<string, string>, currency: string | undefined): Record<string, string> {
  const name = form.name ?? '';
  if (currency === 'JPY') {
    return {
      name,
      bank_code: (form.bank_code ?? '').trim(),
      branch_code: (form.branch_code ?? '').trim(),
      account_number: (form.account_number ?? '').trim(),
    };
  }
  return { name, iban: form.iban ?? '' };
}

const referenceOf = (form: Record<string, string>) => {
  const reference = (form.reference ?? '').trim();
  return reference ? { reference } : {};
};

// ---------------------------------------------------------------------------------------------
// Forms

const CURRENCY_OPTIONS: [string, string][] = FX_TARGET_CURRENCIES.map((code) => [code, code]);

function quoteForm(c: DashContext, flash: Flash | null): Html {
  return html`<section class="card">
  <h2>Get a quote</h2>
  <form method="post" action="${FX}/quotes" data-testid="quote-form">
    ${csrfField(c)}
    <div class="row">
      ${selectOf(flash, { name: 'target_currency', label: 'Buy', fallback: 'EUR', testId: 'quote-target' }, CURRENCY_OPTIONS)}
      ${selectOf(
        flash,
        { name: 'fixed', label: 'The amount is', fallback: 'source', testId: 'quote-fixed' },
        [
          ['source', 'USD to sell'],
          ['target', 'the currency to buy'],
        ],
      )}
      <div><label for="quote_amount">Amount</label>
      <input id="quote_amount" name="amount" inputmode="decimal" required value="${formValue(flash, 'amount', '100.00')}" data-testid="quote-amount"></div>
      ${selectOf(
        flash,
        { name: 'lock_duration', label: 'Lock the rate for', fallback: 'five_minutes', testId: 'quote-lock' },
        [
          ['five_minutes', 'five minutes'],
          ['hour', 'an hour'],
          ['day', 'a day'],
        ],
      )}
    </div>
    <button type="submit" data-testid="create-quote">Get quote</button>
  </form>
  <p class="muted small">Locks this hour's sell rate (POST /v1/fx/quotes) for clock time; convert or settle abroad from the quote's page.</p>
</section>`;
}

/** Destinations to try, one click each: [label, fields]. */
const TRY_DESTINATIONS: [string, Record<string, string>][] = [
  ['EUR: German IBAN', { name: 'Lieferant GmbH', iban: 'DE89 3704 0044 0532 0130 00' }],
  ['GBP: UK IBAN', { name: 'Supplier Ltd', iban: 'GB29 NWBK 6016 1331 9268 19' }],
  [
    'JPY: Japanese account',
    { name: 'Yamada Taro', bank_code: '0001', branch_code: '123', account_number: '1234567' },
  ],
  ['EUR: fails AC04', { name: 'Closed GmbH', iban: 'DE89500105179999999999' }],
  [
    'JPY: fails AC04',
    { name: 'Yamada Taro', bank_code: '0001', branch_code: '123', account_number: '9999999' },
  ],
];

function destinationPicker(formId: string, currency: FxTargetCurrency | null): Html {
  const fits = ([label]: [string, Record<string, string>]) => currency === null || label.startsWith(currency);
  return html`<p class="actions small" data-testid="destination-picker">${TRY_DESTINATIONS.filter(fits).map(
    ([label, fields]) =>
      html`<button type="button" class="secondary small" data-fill="${JSON.stringify(fields)}" data-fill-form="${formId}">${label}</button>`,
  )}</p>`;
}

function field(flash: Flash | null, name: string, label: string, extra: { placeholder?: string } = {}): Html {
  return html`<div><label for="${name}">${label}</label>
  <input id="${name}" name="${name}" placeholder="${extra.placeholder ?? ''}" value="${formValue(flash, name)}" data-testid="destination-${name}"></div>`;
}

/** The destination's fields: an IBAN for EUR/GBP, bank/branch/account for JPY (both when unknown). */
function destinationFields(flash: Flash | null, currency: FxTargetCurrency | null): Html {
  const iban = currency !== 'JPY';
  const japanese = currency === null || currency === 'JPY';
  return html`<div class="row">
    ${field(flash, 'name', "Account holder's name")}
    ${field(flash, 'reference', 'Reference (optional)')}
  </div>
  ${iban ? html`<div class="row">${field(flash, 'iban', currency === null ? 'IBAN (EUR, GBP)' : 'IBAN', { placeholder: 'DE89 3704 0044 0532 0130 00' })}</div>` : ''}
  ${
    japanese
      ? html`<div class="row">
    ${field(flash, 'bank_code', currency === null ? 'Bank code (JPY, 4 digits)' : 'Bank code (4 digits)')}
    ${field(flash, 'branch_code', 'Branch code (3 digits)')}
    ${field(flash, 'account_number', 'Account number (7 digits)')}
  </div>`
      : ''
  }`;
}

function payoutForm(c: DashContext, flash: Flash | null, balances: Html): Html {
  return html`<section class="card">
  <h2>Pay out of a EUR, GBP or JPY balance</h2>
  ${balances}
  <form method="post" action="${FX}/settlements" id="payout-form" data-testid="payout-form">
    ${csrfField(c)}
    <div class="row">
      ${selectOf(flash, { name: 'currency', label: 'Currency', fallback: 'EUR', testId: 'payout-currency' }, CURRENCY_OPTIONS)}
      <div><label for="payout_amount">Amount</label>
      <input id="payout_amount" name="amount" inputmode="decimal" required value="${formValue(flash, 'amount')}" data-testid="payout-amount"></div>
    </div>
    ${destinationFields(flash, null)}
    ${destinationPicker('payout-form', null)}
    <button type="submit" data-testid="create-payout">Pay out</button>
  </form>
  <p class="muted small">A settlement funded by the balance (POST /v1/fx/settlements with currency and amount): held now, paid the next US banking day at 12:00 ET.</p>
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Lists

/** A list; `narrowHide` names the columns (from 1) a phone hides, never the state or an amount. */
function table(testId: string, head: string[], rows: Html[], empty: string, narrowHide = '5 6'): Html {
  if (rows.length === 0) return html`<p class="muted" data-testid="${testId}-empty">${empty}</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="${testId}" data-narrow-hide="${narrowHide}">
<thead><tr>${head.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function quotesTable(rows: FxQuoteRow[]): Html {
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

function conversionsTable(rows: FxConversionRow[]): Html {
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

function destinationText(s: FxSettlementRow): string {
  const d = s.destination;
  const account =
    d.type === 'iban' ? `IBAN ${d.country} ••${d.last4}` : `${d.bank_code}-${d.branch_code} ••${d.last4}`;
  return `${d.name} · ${account}`;
}

function settlementsTable(rows: FxSettlementRow[]): Html {
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

async function foreignBalances(svc: ServiceContext): Promise<Html> {
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

function countdown(msLeft: number, running: boolean): Html {
  return html`<span class="countdown" data-testid="quote-countdown" data-countdown-ms="${msLeft}" data-countdown-running="${running ? 'true' : 'false'}">${countdownText(msLeft)}</span>${running ? '' : html` <span class="muted small">(the clock is frozen)</span>`}`;
}

function quoteDetails(quote: FxQuoteRow, counter: Html | null): Html {
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

function quoteActions(c: DashContext, flash: Flash | null, quote: FxQuoteRow): Html {
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
    <input type="hidden" name="destination_currency" value="${currency}">
    ${destinationFields(flash, currency)}
    ${destinationPicker('settle-form', currency)}
    <button type="submit" data-testid="quote-settle">Settle ${money(quote.targetAmount, currency)} abroad</button>
  </form>
</section>`;
}

function quoteClosed(quote: FxQuoteRow): Html {
  if (quote.state === 'used')
    return html`<p class="notice" data-testid="quote-used">This quote was used by ${objectLink(quote.usedBy)}.</p>`;
  return html`<p class="error" data-testid="quote-expired">This quote expired at ${when(quote.expiresAt)}; get a new one on the <a href="${FX}">FX page</a>.</p>`;
}

// ---------------------------------------------------------------------------------------------
// Routes

async function fxPage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const flash = takeFlash(c);
  const now = (await getClock(svc)).now;
  const hours = hourlyRates(svc, now);
  const recent = { limit: 10 };
  const [quotes, conversions, settlements] = await Promise.all([
    listQuotes(svc, recent),
    listConversions(svc, recent),
    listSettlements(svc, recent),
  ]);
  return shell(
    c,
    { title: 'Foreign exchange', active: 'fx', flash },
    html`<div class="grid">
<section class="card"><h2>Rates now <span class="muted small">USD → EUR, GBP, JPY</span></h2>${ratesTable(getRates(svc, now))}</section>
${quoteForm(c, flash)}
</div>
<section class="card" data-testid="rate-charts">
  <h2>Rates over the last ${CHART_HOURS} clock hours <span class="muted small">mid and sell, hourly</span></h2>
  <div class="grid">${FX_TARGET_CURRENCIES.map((currency) => rateChart(currency, hours, now))}</div>
</section>
<section class="card"><h2>Recent quotes</h2>${quotesTable(quotes.data)}</section>
<section class="card"><h2>Recent conversions</h2>${conversionsTable(conversions.data)}</section>
<section class="card"><h2>Recent settlements</h2>${settlementsTable(settlements.data)}</section>
${payoutForm(c, flash, await foreignBalances(svc))}`,
  );
}

async function quotePage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const quote = await getQuote(svc, c.req.param('id') ?? ''); // unknown: the 404 page (app.onError)
  const flash = takeFlash(c);
  const clock = await getClock(svc);
  const msLeft = Math.max(0, quote.expiresAt.getTime() - clock.now.getTime());
  const usable = quote.state === 'open' && msLeft > 0;
  return shell(
    c,
    { title: `FX quote USD → ${quote.targetCurrency}`, active: 'fx', flash },
    html`<section class="card">${quoteDetails(quote, quote.state === 'used' ? null : countdown(msLeft, !clock.frozen && usable))}</section>
${usable ? html`<div class="grid">${quoteActions(c, flash, quote)}</div>` : quoteClosed(quote)}
<p><a href="${FX}">← Foreign exchange</a></p>`,
  );
}

const transactionPath = (id: string) => objectPath(id) ?? FX;

export function registerFxPages(app: Hono<DashEnv>): void {
  app.get('/fx', fxPage);
  app.get('/fx/quotes/:id', quotePage);

  app.post('/fx/quotes', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, FX, async () => {
      const quote = await createQuote(svc, parseInput(createQuoteSchema, quoteBody(form), quoteFieldCodes));
      return {
        to: quotePath(quote.id),
        notice: `Quote ${quote.id}: rate ${quote.rate} until ${quote.expiresAt.toISOString()}.`,
      };
    });
  });

  app.post('/fx/quotes/:id/convert', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const id = c.req.param('id');
    return submitForm(c, form, quotePath(id), async () => {
      const input = parseInput(createConversionSchema, { quote_id: id }, conversionFieldCodes);
      const row = await createConversion(svc, input);
      return {
        to: transactionPath(row.id),
        notice: `Converted ${money(row.amount, row.currency)} into ${money(row.targetAmount, row.targetCurrency)} (${row.id}).`,
      };
    });
  });

  app.post('/fx/quotes/:id/settle', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const id = c.req.param('id');
    const body = {
      quote_id: id,
      destination: destinationOf(form, form.destination_currency),
      ...referenceOf(form),
    };
    return submitForm(c, form, quotePath(id), () => settle(svc, body));
  });

  app.post('/fx/settlements', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const body = {
      currency: form.currency,
      amount: (form.amount ?? '').trim(),
      destination: destinationOf(form, form.currency),
      ...referenceOf(form),
    };
    return submitForm(c, form, FX, () => settle(svc, body));
  });
}

/** A settlement of the form's body, parsed as POST /v1/fx/settlements parses it. */
async function settle(svc: ServiceContext, body: Record<string, unknown>) {
  const row = await createSettlement(svc, parseInput(createSettlementSchema, body, settlementFieldCodes));
  return {
    to: transactionPath(row.id),
    notice: `Settlement ${row.id}: ${money(row.amount, row.currency)} to ${destinationText(row)}, to be paid ${bankTime(row.expectedPaidAt)}.`,
  };
}
