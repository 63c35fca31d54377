import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { ExpectedPaymentRow } from '../../modules/reconciliation/reconciliation.resource.ts';
import {
  createExpectedPaymentFieldCodes,
  createExpectedPaymentSchema,
} from '../../modules/reconciliation/reconciliation.schema.ts';
import {
  cancelExpectedPayment,
  createExpectedPayment,
  listExpectedPayments,
} from '../../modules/reconciliation/reconciliation.service.ts';
import { simulatePayment } from '../../modules/reconciliation/reconciliation.simulate.ts';
import { bankWhen } from '../bank-time.ts';
import { bodyOfForm, cursorOf, olderLink, selectOf, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashEnv, dashboardContext, formOf } from './session.ts';
import {
  actionButton,
  csrfField,
  formValue,
  type Html,
  money,
  objectLink,
  stateBadge,
  takeFlash,
} from './ui.ts';

/**
 * Reconciliation in the dashboard: the expected payments with their state and matches, a form that
 * expects one, and per open one the buttons that have its payer pay it (simulated) or cancel it.
 * Each calls the service its REST route calls.
 */

const BASE = '/dashboard/expected_payments';

function row(c: Parameters<typeof csrfField>[0], exp: ExpectedPaymentRow): Html {
  const open = exp.state === 'unmatched' || exp.state === 'partially_matched';
  const range =
    exp.amountMin === exp.amountMax
      ? money(exp.amountMin, 'USD')
      : html`${money(exp.amountMin, 'USD')}–${money(exp.amountMax, 'USD')}`;
  return html`<tr data-testid="expected-payment-row" data-id="${exp.id}">
  <td><code>${exp.id}</code> <span class="muted small">${exp.direction}${exp.rail ? ` · ${exp.rail}` : ''}</span></td>
  <td>${stateBadge(exp.state, exp.id)}</td>
  <td class="num">${range}</td>
  <td class="num">${money(exp.amountMatched, 'USD')}</td>
  <td>${exp.dateFrom} → ${exp.dateTo}</td>
  <td>${exp.reference ?? html`<span class="muted">—</span>`}</td>
  <td>${exp.matches.map((m) => html`${objectLink(m.source_id)} `)}</td>
  <td>${
    open
      ? html`${
          exp.direction === 'credit'
            ? actionButton(c, `${BASE}/${exp.id}/pay`, 'Payer pays', { testId: 'expected-pay' })
            : ''
        } ${actionButton(c, `${BASE}/${exp.id}/cancel`, 'Cancel', { className: 'danger', testId: 'expected-cancel' })}`
      : ''
  }</td>
</tr>`;
}

export function registerReconciliationPages(app: Hono<DashEnv>): void {
  app.get('/expected_payments', async (c) => {
    const svc = await dashboardContext(c);
    const flash = takeFlash(c);
    const page = await listExpectedPayments(svc, { limit: 25, starting_after: cursorOf(c) });
    const rows = page.data.length
      ? html`<div class="table-wrap"><table class="list" data-testid="expected-payments">
<thead><tr><th>Expected payment</th><th>State</th><th class="num">Amount</th><th class="num">Matched</th><th>Window</th><th>Reference</th><th>Matches</th><th></th></tr></thead>
<tbody>${page.data.map((exp) => row(c, exp))}</tbody></table></div>`
      : html`<p class="muted" data-testid="no-expected-payments">No expected payments yet.</p>`;
    return shell(
      c,
      { title: 'Reconciliation', active: 'expected_payments', flash },
      html`<section class="card"><h2>Expect a payment</h2>
<form method="post" action="${BASE}" data-testid="expected-form">
  ${csrfField(c)}
  <div class="row">
    ${selectOf(
      flash,
      {
        name: 'direction',
        id: 'expected-direction',
        label: 'Direction',
        fallback: 'credit',
        testId: 'expected-direction',
      },
      [
        ['credit', 'money in'],
        ['debit', 'money out'],
      ],
    )}
    <div><label for="expected-amount">Amount (USD)</label><input id="expected-amount" name="amount" inputmode="decimal" value="${formValue(flash, 'amount')}" data-testid="expected-amount"></div>
    <input type="hidden" name="currency" value="USD">
    <div><label for="expected-reference">Reference</label><input id="expected-reference" name="reference" value="${formValue(flash, 'reference')}" data-testid="expected-reference"></div>
    <div><label for="expected-days">Window (days from today)</label><input id="expected-days" name="days" inputmode="numeric" value="${formValue(flash, 'days') || '3'}" data-testid="expected-days"></div>
  </div>
  <button type="submit" data-testid="expected-submit">Expect it</button>
</form>
<p class="muted small">POST /v1/expected_payments. Matched against your bank movements as they are booked (clock now: ${bankWhen(svc.clock.now())}); overdue at the window's end. "Payer pays" simulates the payer: amounts ending .01 pay 1.00 short, .02 in two halves, .03 1.00 over, .04 under another reference.</p></section>
<section class="card">${rows}${olderLink(BASE, page.nextCursor)}</section>`,
    );
  });

  app.post('/expected_payments', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, BASE, async () => {
      const exp = await createExpectedPayment(
        svc,
        bodyOfForm(createExpectedPaymentSchema, form, createExpectedPaymentFieldCodes),
      );
      return { to: BASE, notice: `Expected payment ${exp.id}: ${exp.state}.` };
    });
  });

  for (const [action, run] of [
    ['pay', simulatePayment],
    ['cancel', cancelExpectedPayment],
  ] as const)
    app.post(`/expected_payments/:id/${action}`, async (c) => {
      const form = await formOf(c);
      const svc = await dashboardContext(c);
      return submitForm(c, form, BASE, async () => {
        const exp = await run(svc, c.req.param('id'));
        return { to: BASE, notice: `Expected payment ${exp.id}: ${exp.state}.` };
      });
    });
}
