import type { Hono } from 'hono';
import { html } from 'hono/html';
import { getClock } from '../../modules/clock/clock.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { balanceHistory, getBalances } from '../../modules/ledger/ledger.queries.ts';
import { listTransactions } from '../../modules/transactions/transactions.service.ts';
import { lineChart } from './chart.ts';
import { shell } from './layout.ts';
import { type DashEnv, dashboardContext } from './session.ts';
import { transactionTable } from './tx-table.ts';
import { type Html, money } from './ui.ts';

/**
 * The longest span a balance chart shows, ending at the merchant's clock: after the clock jumps by
 * years, the last 30 days stay readable (older postings give the value the line starts with).
 */
export const CHART_WINDOW = 30 * 24 * 3_600_000;

/** The home page: balances per currency, each with its chart over clock time, and recent transactions. */
async function balancesSection(svc: ServiceContext): Promise<Html> {
  const [balances, clock] = await Promise.all([getBalances(svc), getClock(svc)]);
  const charts = await Promise.all(
    balances.map(async (b) => {
      const points = await balanceHistory(svc, b.currency);
      const plot = (pick: (p: (typeof points)[number]) => bigint) =>
        points.map((p) => ({ at: p.at, value: Number(pick(p)) }));
      return lineChart(
        `${b.currency} balance over clock time`,
        [
          { label: 'available', color: '#4f46e5', points: plot((p) => p.available) },
          { label: 'pending', color: '#f79009', points: plot((p) => p.pending) },
          { label: 'reserved', color: '#667085', points: plot((p) => p.reserved) },
        ],
        {
          steps: true,
          until: clock.now,
          window: CHART_WINDOW,
          initial: 0,
          format: (v) => money(BigInt(Math.round(v)), b.currency),
          // Axis ticks are round amounts: whole units drop their ".00".
          axisFormat: (v) => money(BigInt(Math.round(v)), b.currency).replace(/\.0+ /, ' '),
        },
      );
    }),
  );
  return html`<section class="balances" data-testid="balances">${balances.map(
    (b, i) => html`<article class="card balance" data-testid="balance-${b.currency}">
  <h2>${b.currency}</h2>
  <dl class="figures">
    <div><dt>Available</dt><dd data-testid="available-${b.currency}">${money(b.available, b.currency)}</dd></div>
    <div><dt>Pending</dt><dd>${money(b.pending, b.currency)}</dd></div>
    <div><dt>Reserved</dt><dd>${money(b.reserved, b.currency)}</dd></div>
  </dl>
  ${charts[i]}
</article>`,
  )}</section>`;
}

async function recent(svc: ServiceContext): Promise<Html> {
  const page = await listTransactions(svc, { limit: 10 });
  return transactionTable(page.data);
}

export function registerHomePage(app: Hono<DashEnv>): void {
  app.get('/', async (c) => {
    const svc = await dashboardContext(c);
    return shell(
      c,
      { title: 'Home', active: 'home' },
      html`<div data-live-refresh="/dashboard/fragments/balances" data-live-on="any">${await balancesSection(svc)}</div>
<section class="card">
  <h2>Recent transactions <span class="muted small">live</span></h2>
  <div data-live-refresh="/dashboard/fragments/recent" data-testid="recent">${await recent(svc)}</div>
  <p><a href="/dashboard/transactions">All transactions →</a></p>
</section>`,
    );
  });

  app.get('/fragments/recent', async (c) => c.html(await recent(await dashboardContext(c))));
  app.get('/fragments/balances', async (c) => c.html(await balancesSection(await dashboardContext(c))));
}
