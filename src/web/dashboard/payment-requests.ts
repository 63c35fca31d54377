import type { Hono } from 'hono';
import { html } from 'hono/html';
import { listEvents } from '../../modules/events/events.service.ts';
import type { PaymentRequestRow } from '../../modules/payment-requests/payment-requests.resource.ts';
import { RFP_REJECT_REASONS } from '../../modules/payment-requests/payment-requests.rules.ts';
import {
  createPaymentRequestFieldCodes,
  createPaymentRequestSchema,
  rejectPaymentRequestSchema,
  simulatePaymentRequestFieldCodes,
  simulatePaymentRequestSchema,
} from '../../modules/payment-requests/payment-requests.schema.ts';
import {
  acceptPaymentRequest,
  cancelPaymentRequest,
  createPaymentRequest,
  getPaymentRequest,
  listPaymentRequests,
  rejectPaymentRequest,
  simulatePaymentRequest,
} from '../../modules/payment-requests/payment-requests.service.ts';
import { bankWhen } from '../bank-time.ts';
import { bodyOfForm, cursorOf, olderLink, selectOf, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { objectStepRoutes } from './object-steps.ts';
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
  stateBadge,
  takeFlash,
} from './ui.ts';

/**
 * Requests for payment in the dashboard: the list, the form that asks a payer for money, the form
 * that simulates a requester asking the merchant, and a request's page with the answers its
 * direction and state allow (accept and pay, reject with a reason, withdraw) and its events. Every
 * form calls the service its REST route calls, with the body REST takes.
 */

const BASE = '/dashboard/payment_requests';
const pathOf = (id: string) => `${BASE}/${encodeURIComponent(id)}`;
const RAILS: [string, string][] = [
  ['rtp', 'RTP'],
  ['fednow', 'FedNow'],
];

function table(rows: PaymentRequestRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="no-payment-requests">No requests for payment yet.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="payment-requests">
<thead><tr><th>Request</th><th>Direction</th><th>State</th><th class="num">Amount</th><th>Counterparty</th><th>Expires (clock)</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-live-row="${row.id}" data-testid="payment-request-row">
  <td>${objectLink(row.id)} <span class="muted small">${row.rail}</span></td>
  <td>${row.direction === 'outbound' ? 'requested by you' : 'requested of you'}</td>
  <td>${stateBadge(row.state, row.id)}</td>
  <td class="num">${money(row.amount, row.currency)}</td>
  <td>${row.counterpartyName} <span class="muted small">${row.routingNumber} ••••${row.accountLast4}</span></td>
  <td>${bankWhen(row.expiresAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

/** The form of one direction: `payer` (request money) or `requester` (simulate being asked). */
function requestForm(c: DashContext, flash: Flash | null, party: 'payer' | 'requester'): Html {
  const action = party === 'payer' ? BASE : `${BASE}/simulate`;
  const field = (name: string, label: string, placeholder: string) => {
    const key = `${party}[${name}]`;
    return html`<div><label for="${party}-${name}">${label}</label><input id="${party}-${name}" name="${key}" placeholder="${placeholder}" value="${formValue(flash, key)}" data-testid="${party}-${name}"></div>`;
  };
  return html`<form method="post" action="${action}" data-testid="${party}-form">
  ${csrfField(c)}
  <div class="row">
    ${selectOf(flash, { name: 'rail', id: `${party}-rail`, label: 'Rail', fallback: 'rtp', testId: `${party}-rail` }, RAILS)}
    <div><label for="${party}-amount">Amount (USD)</label><input id="${party}-amount" name="amount" inputmode="decimal" value="${formValue(flash, 'amount')}" data-testid="${party}-amount"></div>
    <input type="hidden" name="currency" value="USD">
    ${field('name', party === 'payer' ? 'Payer' : 'Requester', 'Name')}
    ${field('routing_number', 'Routing number', '021000021')}
    ${field('account_number', 'Account number', '000123456789')}
  </div>
  <button type="submit" data-testid="${party}-submit">${party === 'payer' ? 'Request payment' : 'Simulate an incoming request'}</button>
</form>`;
}

function actions(c: DashContext, row: PaymentRequestRow): Html {
  const open = row.state === 'pending' || row.state === 'accepted';
  if (!open) return html`<p class="muted" data-testid="no-actions">None: this request is ${row.state}.</p>`;
  if (row.direction === 'outbound')
    return actionButton(c, `${pathOf(row.id)}/cancel`, 'Withdraw the request', {
      className: 'danger',
      testId: 'rfp-cancel',
    });
  if (row.state !== 'pending')
    return html`<p class="muted" data-testid="no-actions">None while it is ${row.state}.</p>`;
  return html`<div class="actions">
  ${actionButton(c, `${pathOf(row.id)}/accept`, 'Accept and pay', { testId: 'rfp-accept' })}
  <form method="post" action="${pathOf(row.id)}/reject" class="inline" data-testid="rfp-reject-form">
    ${csrfField(c)}
    <select name="reason" aria-label="Reason" data-testid="rfp-reject-reason">${Object.entries(
      RFP_REJECT_REASONS,
    ).map(
      ([code, text]) =>
        html`<option value="${code}" ${code === 'NARR' ? 'selected' : ''}>${code} — ${text}</option>`,
    )}</select>
    <button type="submit" class="danger" data-testid="rfp-reject">Reject</button>
  </form>
</div>`;
}

export function registerPaymentRequestPages(app: Hono<DashEnv>): void {
  app.get('/payment_requests', async (c) => {
    const svc = await dashboardContext(c);
    const flash = takeFlash(c);
    const page = await listPaymentRequests(svc, { limit: 25, starting_after: cursorOf(c) });
    return shell(
      c,
      { title: 'Requests for payment', active: 'payment_requests', flash },
      html`<section class="card"><h2>Request money</h2>${requestForm(c, flash, 'payer')}
<p class="muted small">POST /v1/payment_requests. The payer's bank answers a minute later (clock time) and pays a minute after; 000444444440 rejects (AC04), 000555555553 rejects (AM14), 000888888885 accepts and never pays, 000000000009 never answers.</p></section>
<section class="card"><h2>Simulate a request to you</h2>${requestForm(c, flash, 'requester')}
<p class="muted small">POST /v1/simulate/payment_requests: accept it (paid at once by a credit transfer) or reject it on its page.</p></section>
<section class="card">${table(page.data)}${olderLink(BASE, page.nextCursor)}</section>`,
    );
  });

  app.post('/payment_requests', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, BASE, async () => {
      const row = await createPaymentRequest(
        svc,
        bodyOfForm(createPaymentRequestSchema, form, createPaymentRequestFieldCodes),
      );
      return { to: pathOf(row.id), notice: `Request ${row.id} sent: ${row.state}.` };
    });
  });

  app.post('/payment_requests/simulate', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, BASE, async () => {
      const row = await simulatePaymentRequest(
        svc,
        bodyOfForm(simulatePaymentRequestSchema, form, simulatePaymentRequestFieldCodes),
      );
      return { to: pathOf(row.id), notice: `Request ${row.id} received: ${row.state}.` };
    });
  });

  app.get('/payment_requests/:id', async (c) => {
    const svc = await dashboardContext(c);
    const row = await getPaymentRequest(svc, c.req.param('id')); // unknown: the 404 page (app.onError)
    const flash = takeFlash(c);
    const events = await listEvents(svc, { limit: 50, object_id: row.id });
    return shell(
      c,
      {
        title: `Request for payment · ${money(row.amount, row.currency)}`,
        active: 'payment_requests',
        flash,
      },
      html`<section class="card">${details([
        ['Id', html`<code data-testid="rfp-id">${row.id}</code>`],
        ['State', html`<span data-testid="rfp-state">${stateBadge(row.state, row.id)}</span>`],
        [
          'Direction',
          row.direction === 'outbound' ? 'outbound: you asked a payer' : 'inbound: you were asked',
        ],
        ['Rail', row.rail],
        ['Amount', money(row.amount, row.currency)],
        [
          row.direction === 'outbound' ? 'Payer' : 'Requester',
          `${row.counterpartyName} · ${row.routingNumber} ••••${row.accountLast4}`,
        ],
        ['Expires (clock)', bankWhen(row.expiresAt)],
        ['Answered', row.respondedAt && bankWhen(row.respondedAt)],
        ['Rejection', row.rejectionCode && `${row.rejectionCode}: ${row.rejectionReason}`],
        ['Paid by', html`<span data-testid="rfp-transfer">${objectLink(row.transferId)}</span>`],
      ])}</section>
<section class="card" data-testid="rfp-actions"><h2>Actions</h2>${actions(c, row)}</section>
<section class="card"><h2>Events</h2><ul>${events.data.map(
        (event) =>
          html`<li data-testid="event">${objectLink(event.id)} <code>${event.type}</code> ${bankWhen(event.createdAt)}</li>`,
      )}</ul></section>
<p><a href="${BASE}">← All requests for payment</a></p>`,
    );
  });

  objectStepRoutes<PaymentRequestRow>(app, '/payment_requests', (row) => `Request ${row.id}: ${row.state}.`, {
    accept: (svc, id) => acceptPaymentRequest(svc, id),
    reject: (svc, id, form) => rejectPaymentRequest(svc, id, bodyOfForm(rejectPaymentRequestSchema, form)),
    cancel: (svc, id) => cancelPaymentRequest(svc, id),
  });
}
