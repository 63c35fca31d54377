import type { Hono } from 'hono';
import { html } from 'hono/html';
import { getClock } from '../../modules/clock/clock.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { createConversion, listConversions } from '../../modules/fx/fx.conversions.ts';
import { getRates } from '../../modules/fx/fx.pricing.ts';
import { createQuote, getQuote, listQuotes } from '../../modules/fx/fx.quotes.ts';
import { FX_TARGET_CURRENCIES } from '../../modules/fx/fx.rates.ts';
import {
  conversionFieldCodes,
  createConversionSchema,
  createQuoteSchema,
  createSettlementSchema,
  quoteFieldCodes,
  settlementFieldCodes,
} from '../../modules/fx/fx.schema.ts';
import { createSettlement, listSettlements } from '../../modules/fx/fx.settlements.ts';
import { bankTime } from '../bank-time.ts';
import { bodyOfForm, submitForm } from './form-submit.ts';
import { FX, payoutForm, quoteForm, quotePath } from './fx-forms.ts';
import {
  CHART_HOURS,
  conversionsTable,
  countdown,
  destinationText,
  foreignBalances,
  hourlyRates,
  quoteActions,
  quoteClosed,
  quoteDetails,
  quotesTable,
  rateChart,
  ratesTable,
  settlementsTable,
} from './fx-views.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { money, objectPath, takeFlash } from './ui.ts';

/**
 * Foreign exchange in the dashboard: the clock's rates and a chart of the last 48
 * clock hours, the quote form, recent quotes, conversions and settlements, a payout out of a
 * EUR/GBP/JPY balance; a quote's page with its countdown to expiry, "Convert" and "Settle abroad".
 * Every form calls the service REST calls with the body REST takes.
 */

/** The chart's span (its views are in fx-views.ts, the forms in fx-forms.ts). */
export { CHART_HOURS };

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
      const quote = await createQuote(svc, bodyOfForm(createQuoteSchema, form, quoteFieldCodes));
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
      const input = bodyOfForm(createConversionSchema, { ...form, quote_id: id }, conversionFieldCodes);
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
    // The quote is the page's, as the body names it.
    return submitForm(c, form, quotePath(id), () => settle(svc, { ...form, quote_id: id }));
  });

  app.post('/fx/settlements', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, FX, () => settle(svc, form));
  });
}

/** A settlement of the form, read as POST /v1/fx/settlements reads its body. */
async function settle(svc: ServiceContext, form: Record<string, string>) {
  const row = await createSettlement(svc, bodyOfForm(createSettlementSchema, form, settlementFieldCodes));
  return {
    to: transactionPath(row.id),
    notice: `Settlement ${row.id}: ${money(row.amount, row.currency)} to ${destinationText(row)}, to be paid ${bankTime(row.expectedPaidAt)}.`,
  };
}
