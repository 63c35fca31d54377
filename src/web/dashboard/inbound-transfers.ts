import type { Hono } from 'hono';
import { html } from 'hono/html';
import { timelineOf } from '../../modules/events/events.service.ts';
import {
  type InboundTransferRow,
  inboundReturnDeadline,
} from '../../modules/inbound-transfers/inbound-transfers.resource.ts';
import { receiverCodesFor } from '../../modules/inbound-transfers/inbound-transfers.returns.ts';
import {
  createInboundTransferFieldCodes,
  createInboundTransferSchema,
  returnInboundTransferSchema,
} from '../../modules/inbound-transfers/inbound-transfers.schema.ts';
import {
  createInboundTransfer,
  getInboundTransfer,
  listInboundTransfers,
  returnInboundTransfer,
  settleInboundTransfer,
} from '../../modules/inbound-transfers/inbound-transfers.service.ts';
import { isAchRail } from '../../modules/transfers/transfers.rails.ts';
import { bankWhen } from '../bank-time.ts';
import { bodyOfForm, selectOf, submitForm } from './form-submit.ts';
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
  stateBadge,
  takeFlash,
  when,
} from './ui.ts';

/**
 * Inbound transfers in the dashboard: a form that simulates an outside originator's entry, the
 * list, and each entry's page with its details, state timeline and the actions its state allows
 * (settle now while pending on ACH; return with a Nacha code while settled). Every form's inputs
 * carry the body's names (`originator[name]`): it is read as REST reads a form body (bodyOfForm).
 */

const BASE = '/dashboard/inbound_transfers';
const pathOf = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

const RAIL_OPTIONS: [string, string][] = [
  ['ach', 'ACH (next window, settles the next banking day)'],
  ['same_day_ach', 'Same-Day ACH'],
  ['rtp', 'RTP (credits only, at once)'],
  ['fednow', 'FedNow (credits only, at once)'],
  ['wire', 'Wire — Fedwire (credits only; at once in its operating day, else at its opening)'],
];

const SEC_OPTIONS: [string, string][] = [
  ['', 'default (CCD)'],
  ['PPD', 'PPD — consumer'],
  ['CCD', 'CCD — business'],
  ['WEB', 'WEB — internet-authorized'],
];

/**
 * The codes a receiver may send this entry back with (the return rules: direction and SEC code),
 * each with its time frame and, for the unauthorized-debit codes, the written statement it needs.
 */
function returnCodeOptions(row: InboundTransferRow): [string, string][] {
  return receiverCodesFor({ direction: row.direction as 'credit' | 'debit', secCode: row.secCode }).map(
    (c) => [c.code, `${c.code} ${c.title} — ${c.timeFrame}${c.wsud ? '; needs a signed WSUD' : ''}`],
  );
}

/** A labelled input named as the body's field (`originator[name]`); `id` names it on the page. */
function field(flash: Flash | null, spec: { id: string; name: string; label: string }, fallback = ''): Html {
  return html`<div><label for="${spec.id}">${spec.label}</label>
  <input id="${spec.id}" name="${spec.name}" value="${formValue(flash, spec.name, fallback)}" data-testid="inbound-${spec.id}"></div>`;
}

function createForm(c: DashContext, flash: Flash | null): Html {
  return html`<section class="card">
  <h2>Simulate an inbound transfer</h2>
  <form method="post" action="${BASE}" data-testid="inbound-form">
    ${csrfField(c)}
    ${selectOf(flash, { name: 'rail', label: 'Rail', fallback: 'ach', testId: 'inbound-rail' }, RAIL_OPTIONS)}
    ${selectOf(
      flash,
      { name: 'direction', label: 'Direction', fallback: 'credit', testId: 'inbound-direction' },
      [
        ['credit', 'Credit (money in)'],
        ['debit', 'Debit (money out, ACH only)'],
      ],
    )}
    ${field(flash, { id: 'amount', name: 'amount', label: 'Amount' }, '100.00')}
    ${selectOf(flash, { name: 'currency', label: 'Currency', fallback: 'USD', testId: 'inbound-currency' }, [['USD', 'USD']])}
    ${field(flash, { id: 'name', name: 'originator[name]', label: 'Originator name' }, 'Acme Payroll')}
    ${field(flash, { id: 'routing_number', name: 'originator[routing_number]', label: 'Originator routing number' }, '021000021')}
    ${field(flash, { id: 'account_number', name: 'originator[account_number]', label: 'Originator account number' }, '000987654321')}
    ${selectOf(
      flash,
      {
        name: 'originator[account_type]',
        id: 'account_type',
        label: 'Account type',
        fallback: 'checking',
        testId: 'inbound-account_type',
      },
      [
        ['checking', 'checking'],
        ['savings', 'savings'],
      ],
    )}
    ${selectOf(flash, { name: 'sec_code', label: 'SEC code (ACH only)', fallback: '', testId: 'inbound-sec_code' }, SEC_OPTIONS)}
    ${field(flash, { id: 'reference', name: 'reference', label: 'Reference (optional)' })}
    ${field(flash, { id: 'description', name: 'description', label: 'Description (optional)' })}
    <button type="submit" data-testid="inbound-submit">Send it in</button>
  </form>
</section>`;
}

function listTable(rows: InboundTransferRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="inbound-empty">No inbound transfers yet.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="inbound-list">
<thead><tr><th>Inbound transfer</th><th>State</th><th>Rail</th><th>Direction</th><th>Amount</th><th>From</th><th>Created (clock)</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr>
  <td><a href="${pathOf(row.id)}" class="mono">${row.id}</a></td><td>${stateBadge(row.state)}</td>
  <td>${row.rail}</td><td>${row.direction}</td><td class="num">${money(row.amount, row.currency)}</td>
  <td>${row.originatorName}</td><td>${when(row.createdAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

async function listPage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const flash = takeFlash(c);
  const page = await listInboundTransfers(svc, { limit: 50 });
  return shell(
    c,
    { title: 'Inbound transfers', active: 'inbound', flash },
    html`${createForm(c, flash)}
<section class="card"><h2>Recent inbound transfers</h2>${listTable(page.data)}</section>`,
  );
}

function actions(c: DashContext, flash: Flash | null, row: InboundTransferRow): Html {
  if (!isAchRail(row.rail) || row.state === 'returned')
    return html`<p class="muted" data-testid="no-actions">None: this inbound transfer is ${row.state}${isAchRail(row.rail) ? '' : row.rail === 'wire' ? ' (wires are final)' : ' (instant payments are irrevocable)'}.</p>`;
  if (row.state === 'pending')
    return actionButton(c, `${pathOf(row.id)}/settle`, 'Settle now', { testId: 'inbound-settle' });
  const fallback = row.direction === 'credit' ? 'R23' : row.secCode === 'CCD' ? 'R29' : 'R10';
  return html`<form method="post" action="${pathOf(row.id)}/return" data-testid="inbound-return-form">
  ${csrfField(c)}
  ${selectOf(flash, { name: 'code', label: 'Return code', fallback, testId: 'inbound-return-code' }, returnCodeOptions(row))}
  <button type="submit" data-testid="inbound-return">Return it</button>
</form>`;
}

async function detailPage(c: DashContext): Promise<Response> {
  const svc = await dashboardContext(c);
  const row = await getInboundTransfer(svc, c.req.param('id') ?? ''); // unknown: the 404 page
  const flash = takeFlash(c);
  const timeline = await timelineOf(svc.db, svc.merchant.id, row.id);
  return shell(
    c,
    { title: `Inbound transfer ${row.id}`, active: 'inbound', flash },
    html`<section class="card">${details([
      ['Id', html`<span class="mono">${row.id}</span>`],
      ['State', html`<span data-testid="inbound-state">${stateBadge(row.state)}</span>`],
      ['Rail', row.rail],
      ['Direction', row.direction],
      ['Amount', money(row.amount, row.currency)],
      [
        'Originator',
        `${row.originatorName} · ${row.originatorRoutingNumber} · ••••${row.originatorAccountLast4}`,
      ],
      ['SEC code', row.secCode],
      ['Arrives (window cut-off)', row.expectedArrivalAt ? bankWhen(row.expectedArrivalAt) : null],
      ['Settles', row.expectedSettlementAt ? bankWhen(row.expectedSettlementAt) : null],
      [
        'Return window (2 banking days)',
        inboundReturnDeadline(row) ? bankWhen(inboundReturnDeadline(row)) : null,
      ],
      ['Returned', row.returnCode ? `${row.returnCode} ${row.returnReason ?? ''}` : null],
      ['Reference', row.reference],
    ])}</section>
<section class="card"><h2>Actions</h2>${actions(c, flash, row)}</section>
<section class="card"><h2>State timeline</h2>
<ol class="timeline" data-testid="timeline">${timeline.map(
      (entry) => html`<li data-testid="timeline-entry" data-state="${entry.state}">
  ${stateBadge(entry.state)} ${bankWhen(entry.at)} <span class="muted small"><code>${entry.eventType}</code> ${objectLink(entry.eventId)}</span>
</li>`,
    )}</ol></section>
<p><a href="${BASE}">← Inbound transfers</a></p>`,
  );
}

export function registerInboundTransferPages(app: Hono<DashEnv>): void {
  app.get('/inbound_transfers', listPage);
  app.get('/inbound_transfers/:id', detailPage);

  app.post('/inbound_transfers', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, BASE, async () => {
      const row = await createInboundTransfer(
        svc,
        bodyOfForm(createInboundTransferSchema, form, createInboundTransferFieldCodes),
      );
      return {
        to: pathOf(row.id),
        notice: `Inbound transfer ${row.id} (${row.rail}, ${row.direction}): ${row.state}.`,
      };
    });
  });

  app.post('/inbound_transfers/:id/settle', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const id = c.req.param('id');
    return submitForm(c, form, pathOf(id), async () => {
      const row = await settleInboundTransfer(svc, id);
      return { to: pathOf(row.id), notice: `Settled: this inbound transfer is now ${row.state}.` };
    });
  });

  app.post('/inbound_transfers/:id/return', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const id = c.req.param('id');
    return submitForm(c, form, pathOf(id), async () => {
      const row = await returnInboundTransfer(svc, id, bodyOfForm(returnInboundTransferSchema, form));
      return {
        to: pathOf(row.id),
        notice: `Returned ${row.returnCode}: this inbound transfer is now ${row.state}.`,
      };
    });
  });
}
