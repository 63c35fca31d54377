import type { Hono } from 'hono';
import { html } from 'hono/html';
import { getCardPayment } from '../../modules/card-payments/card-payments.read.ts';
import type { ServiceContext } from '../../modules/context.ts';
import type { DisputeRow } from '../../modules/disputes/disputes.resource.ts';
import {
  resolveDisputeSchema,
  simulateDisputeFieldCodes,
  simulateDisputeSchema,
  updateDisputeSchema,
} from '../../modules/disputes/disputes.schema.ts';
import {
  closeDispute,
  getDispute,
  listDisputes,
  resolveDispute,
  simulateDispute,
  updateDispute,
} from '../../modules/disputes/disputes.service.ts';
import { listEvents, timelineOf } from '../../modules/events/events.service.ts';
import { listBalanceTransactions } from '../../modules/ledger/ledger.queries.ts';
import type { PostingRow } from '../../modules/ledger/ledger.rows.ts';
import { listDeliveries } from '../../modules/webhooks/webhooks.log.ts';
import { bankWhen } from '../bank-time.ts';
import {
  actionsPart,
  DISPUTES,
  disputePath,
  evidenceForm,
  networkCodeLabel,
  openForm,
} from './disputes-forms.ts';
import { deliveryLog } from './events.ts';
import { bodyOfForm, cursorOf, olderLink, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { details, type Flash, type Html, jsonBlock, money, objectLink, stateBadge, takeFlash } from './ui.ts';

/**
 * Disputes in the dashboard: the list, a dispute's page — its fields, the evidence form and the
 * buttons its state allows (submit, save a draft, accept, simulate the issuer's decision), its
 * state timeline, its ledger postings and its events with their webhook deliveries (live) — and
 * the form that simulates a cardholder disputing a captured card payment. Every form calls the
 * service its REST route calls, with the body REST takes. The forms are in disputes-forms.ts.
 */

function disputesTable(rows: DisputeRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="no-disputes">No disputes yet. Open one from a captured card payment's page ("Simulate a dispute"), or pay with a magic dispute card (4000 0000 0000 0259, …2685, …1976) and advance the clock a day.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="disputes" data-narrow-hide="4 5 6">
<thead><tr><th>Dispute</th><th>State</th><th class="num">Amount</th><th>Reason</th><th>Card payment</th><th>Evidence due (clock)</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-live-row="${row.id}" data-testid="dispute-row">
  <td>${objectLink(row.id)}${row.inquiry ? html` <span class="muted small">inquiry</span>` : ''}</td>
  <td>${stateBadge(row.state, row.id)}</td>
  <td class="num">${money(row.amount, row.currency)}</td>
  <td>${row.reason}</td>
  <td>${objectLink(row.cardPaymentId)}</td>
  <td>${bankWhen(row.evidenceDueBy)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function summary(row: DisputeRow): Html {
  return html`<section class="card">${details([
    ['Id', html`<code data-testid="dispute-id">${row.id}</code>`],
    ['State', html`<span data-testid="dispute-state">${stateBadge(row.state, row.id)}</span>`],
    ['Kind', row.inquiry ? 'inquiry (opened as a warning_* dispute)' : 'chargeback'],
    ['Amount', html`<span data-testid="dispute-amount">${money(row.amount, row.currency)}</span>`],
    ['Dispute fee', money(row.fee, row.currency)],
    ['Reason', html`<span data-testid="dispute-reason">${row.reason}</span>`],
    ['Network reason code', html`<span data-testid="dispute-network-code">${networkCodeLabel(row)}</span>`],
    ['Card payment', objectLink(row.cardPaymentId)],
    ['Evidence due', bankWhen(row.evidenceDueBy)],
    ['Evidence submitted', row.evidenceSubmittedAt && bankWhen(row.evidenceSubmittedAt)],
    ['Review ends', row.reviewEndsAt && bankWhen(row.reviewEndsAt)],
    ['Decided by', row.outcomeReason],
    ['Evidence', Object.keys(row.evidence).length ? jsonBlock(row.evidence) : null],
    ['Opened (clock)', bankWhen(row.createdAt)],
    ['Updated (clock)', bankWhen(row.updatedAt)],
  ])}</section>`;
}

function delta(minor: bigint, currency: string): string {
  return minor === 0n ? '' : `${minor > 0n ? '+' : ''}${money(minor, currency)}`;
}

function postingsPart(postings: PostingRow[]): Html {
  const table = postings.length
    ? html`<div class="table-wrap"><table class="list" data-testid="postings">
<thead><tr><th>Id</th><th>Type</th><th class="num">Available</th><th>Created (clock)</th></tr></thead>
<tbody>${postings.map(
        (p) =>
          html`<tr data-testid="posting"><td>${p.id}</td><td>${p.type}</td><td class="num">${delta(p.availableDelta, p.currency)}</td><td>${bankWhen(p.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted" data-testid="no-postings">No ledger posting (an inquiry debits nothing).</p>`;
  return html`<section class="card"><h2>Ledger postings</h2>${table}</section>`;
}

/** Everything below the title: re-rendered live when the dispute changes. */
async function detailPart(c: DashContext, svc: ServiceContext, row: DisputeRow, flash: Flash | null) {
  const exec = svc.tx ?? svc.db;
  const [timeline, postings, events] = await Promise.all([
    timelineOf(exec, svc.merchant.id, row.id),
    listBalanceTransactions(svc, { limit: 50, source_ids: [row.id] }),
    listEvents(svc, { limit: 50, object_id: row.id }),
  ]);
  const withDeliveries = await Promise.all(
    events.data.map(async (event) => ({ event, deliveries: await listDeliveries(svc, event.id) })),
  );
  return html`${summary(row)}
${actionsPart(c, row)}
${evidenceForm(c, row, flash)}
<section class="card"><h2>State timeline</h2>
<ol class="timeline" data-testid="timeline">${timeline.map(
    (entry) => html`<li data-testid="timeline-entry" data-state="${entry.state}">
  ${stateBadge(entry.state)} ${bankWhen(entry.at)} <span class="muted small"><code>${entry.eventType}</code> ${objectLink(entry.eventId)}</span>
</li>`,
  )}</ol></section>
${postingsPart(postings.data)}
<section class="card"><h2>Events and webhook deliveries</h2>${withDeliveries.map(
    ({ event, deliveries }) => html`<article class="event" data-testid="event">
  <h3>${objectLink(event.id)} <code>${event.type}</code> ${bankWhen(event.createdAt)}</h3>
  ${deliveryLog(deliveries)}
</article>`,
  )}</section>`;
}

export function registerDisputePages(app: Hono<DashEnv>): void {
  app.get('/disputes', async (c) => {
    const svc = await dashboardContext(c);
    const flash = takeFlash(c);
    const page = await listDisputes(svc, { limit: 25, starting_after: cursorOf(c) });
    return shell(
      c,
      { title: 'Disputes', active: 'disputes', flash },
      html`<section class="card">
  <div data-live-refresh="${DISPUTES}/fragments/list" data-live-on="any">${disputesTable(page.data)}</div>
  ${olderLink(DISPUTES, page.nextCursor)}
</section>`,
    );
  });

  app.get('/disputes/fragments/list', async (c) => {
    const page = await listDisputes(await dashboardContext(c), { limit: 25 });
    return c.html(disputesTable(page.data));
  });

  app.get('/disputes/new', async (c) => {
    const svc = await dashboardContext(c);
    const payment = await getCardPayment(svc, c.req.query('card_payment') ?? '');
    const flash = takeFlash(c);
    const remaining = money(
      payment.amountCaptured - payment.amountRefunded - payment.amountDisputed,
      payment.currency,
    ).replace(' USD', '');
    return shell(
      c,
      { title: `Simulate a dispute of ${payment.id}`, active: 'disputes', flash },
      html`${openForm(c, flash, { id: payment.id, brand: payment.brand, remaining })}<p>${objectLink(payment.id)}</p>`,
    );
  });

  app.post('/disputes', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const paymentId = form.card_payment ?? '';
    const back = `${DISPUTES}/new?card_payment=${encodeURIComponent(paymentId)}`;
    return submitForm(c, form, back, async () => {
      // The payment is the path's in REST (POST /v1/simulate/card_payments/{id}/dispute).
      const { card_payment: _payment, ...body } = form;
      const input = bodyOfForm(simulateDisputeSchema, body, simulateDisputeFieldCodes);
      const dispute = await simulateDispute(svc, paymentId, input);
      return {
        to: disputePath(dispute.id),
        notice: `Dispute ${dispute.id} opened: ${dispute.state}.`,
      };
    });
  });

  app.get('/disputes/:id', async (c) => {
    const svc = await dashboardContext(c);
    const row = await getDispute(svc, c.req.param('id')); // unknown: the 404 page (app.onError)
    if (c.req.query('fragment')) return c.html(await detailPart(c, svc, row, null));
    const flash = takeFlash(c);
    return shell(
      c,
      { title: `Dispute · ${money(row.amount, row.currency)}`, active: 'disputes', flash },
      html`<div data-live-refresh="${disputePath(row.id)}?fragment=1" data-live-for="${row.id}" data-live-on="any" data-testid="dispute-live">
${await detailPart(c, svc, row, flash)}
</div>
<p><a href="${DISPUTES}">← All disputes</a></p>`,
    );
  });

  app.post('/disputes/:id/evidence', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = disputePath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const input = bodyOfForm(updateDisputeSchema, form);
      const row = await updateDispute(svc, c.req.param('id'), input);
      return {
        to: back,
        notice: input.submit ? `Evidence submitted: the dispute is ${row.state}.` : 'Evidence saved.',
      };
    });
  });

  app.post('/disputes/:id/close', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = disputePath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const row = await closeDispute(svc, c.req.param('id'));
      return { to: back, notice: `Accepted: the dispute is ${row.state}.` };
    });
  });

  app.post('/disputes/:id/resolve', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = disputePath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const input = bodyOfForm(resolveDisputeSchema, form);
      const row = await resolveDispute(svc, c.req.param('id'), input);
      return { to: back, notice: `The issuer decided: the dispute is ${row.state}.` };
    });
  });
}
