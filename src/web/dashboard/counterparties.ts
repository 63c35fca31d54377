import type { Hono } from 'hono';
import { html } from 'hono/html';
import {
  type CorrectedData,
  maskedCorrectedData,
  type NocRecord,
} from '../../modules/bank-accounts/bank-accounts.corrections.ts';
import { createCounterpartySchema } from '../../modules/counterparties/counterparties.schema.ts';
import type { CounterpartyRow } from '../../modules/counterparties/counterparties.service.ts';
import {
  createCounterparty,
  getCounterparty,
  listCounterparties,
} from '../../modules/counterparties/counterparties.service.ts';
import { bankWhen } from '../bank-time.ts';
import { registerVerificationRoutes, verificationPart } from './counterparty-verification.ts';
import { bodyOfForm, cursorOf, olderLink, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, details, type Flash, formValue, type Html, objectLink, takeFlash } from './ui.ts';

/**
 * Saved counterparties in the dashboard: the list with the save form, and a counterparty's page
 * with the corrections notifications of change made to it (each linking its transfer). The form's
 * inputs carry the body's names: it is read as REST reads a form body (bodyOfForm).
 */

const LIST = '/dashboard/counterparties';
const pathOf = (id: string) => `${LIST}/${encodeURIComponent(id)}`;

/** Corrected data as `field: value` pairs. */
function correctedText(data: CorrectedData): string {
  return Object.entries(maskedCorrectedData(data))
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => `${field}: ${value}`)
    .join(' · ');
}

/** A transfer's notifications of change, as its page's "Notification of change" row shows them. */
export function nocList(records: readonly NocRecord[]): Html {
  return html`<ul class="plain" data-testid="notifications-of-change">${records.map(
    (
      noc,
    ) => html`<li data-testid="noc" data-code="${noc.code}"><strong>${noc.code}</strong> ${noc.reason} — ${correctedText(noc.corrected_data)}
  <span class="muted small">received ${bankWhen(new Date(noc.received_at))}; ${
    noc.refused_at
      ? html`refused ${noc.refusal_code} (${noc.refusal_reason}) ${bankWhen(new Date(noc.refused_at))}`
      : html`may be refused until ${bankWhen(new Date(noc.refuse_by))}`
  }${noc.counterparty ? html`; corrected ${objectLink(noc.counterparty)}` : ''}</span></li>`,
  )}</ul>`;
}

function table(rows: CounterpartyRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="no-counterparties">No saved counterparty yet.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="counterparties">
<thead><tr><th>Id</th><th>Name</th><th>Routing</th><th>Account</th><th>Type</th><th>Corrections</th><th>Updated (clock)</th></tr></thead>
<tbody>${rows.map(
    (r) => html`<tr data-testid="counterparty">
  <td><a href="${pathOf(r.id)}" class="mono">${r.id}</a></td><td>${r.name}</td><td>${r.routingNumber}</td>
  <td>•••• ${r.accountNumber.slice(-4)}</td><td>${r.accountType}</td><td>${r.corrections.length}</td><td>${bankWhen(r.updatedAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

function createForm(c: DashContext, flash: Flash | null): Html {
  const field = (name: string, label: string, placeholder = '') =>
    html`<div><label for="cp-${name}">${label}</label><input id="cp-${name}" name="${name}" value="${formValue(flash, name)}" placeholder="${placeholder}" autocomplete="off" data-testid="counterparty-${name}"></div>`;
  return html`<section class="card"><h2>Save a counterparty</h2>
<form method="post" action="${LIST}" class="stack" data-testid="counterparty-form">
  ${csrfField(c)}
  ${field('name', 'Name', 'Acme Supplies')}
  ${field('routing_number', 'Routing number', '021000021')}
  ${field('account_number', 'Account number', '20001 (an NOC C01 follows settlement)')}
  <div><label for="cp-account_type">Account type</label><select id="cp-account_type" name="account_type" data-testid="counterparty-account_type">
    <option value="checking">checking</option><option value="savings" ${formValue(flash, 'account_type') === 'savings' ? 'selected' : ''}>savings</option>
  </select></div>
  ${field('individual_id', 'Individual id (optional)')}
  <button type="submit" data-testid="counterparty-submit">Save</button>
</form></section>`;
}

function correctionsPart(row: CounterpartyRow): Html {
  if (row.corrections.length === 0)
    return html`<p class="muted" data-testid="no-corrections">No notification of change has corrected it.</p>`;
  return html`<ol class="timeline" data-testid="corrections">${row.corrections.map(
    (c) =>
      html`<li data-testid="correction" data-code="${c.code}">${bankWhen(new Date(c.receivedAt))} <strong>${c.code}</strong> ${c.reason} — ${correctedText(c.corrected)} <span class="muted small">from ${objectLink(c.transferId)}${
        c.refusedAt ? html`; refused ${c.refusalCode} ${bankWhen(new Date(c.refusedAt))}, reverted` : ''
      }</span></li>`,
  )}</ol>`;
}

export function registerCounterpartyPages(app: Hono<DashEnv>): void {
  app.get('/counterparties', async (c) => {
    const svc = await dashboardContext(c);
    const flash = takeFlash(c);
    const page = await listCounterparties(svc, { limit: 25, starting_after: cursorOf(c) });
    return shell(
      c,
      { title: 'Counterparties', active: 'counterparties', flash },
      html`${createForm(c, flash)}
<section class="card"><h2>Saved counterparties</h2>${table(page.data)}${olderLink(LIST, page.nextCursor)}</section>`,
    );
  });

  app.post('/counterparties', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, LIST, async () => {
      const saved = await createCounterparty(svc, bodyOfForm(createCounterpartySchema, form));
      return { to: pathOf(saved.id), notice: `Saved ${saved.name} (${saved.id}).` };
    });
  });

  registerVerificationRoutes(app);
  app.get('/counterparties/:id', async (c) => {
    const svc = await dashboardContext(c);
    const row = await getCounterparty(svc, c.req.param('id')); // unknown: the 404 page
    const flash = takeFlash(c);
    return shell(
      c,
      { title: `Counterparty ${row.name}`, active: 'counterparties', flash },
      html`<section class="card">${details([
        ['Id', html`<code data-testid="counterparty-id">${row.id}</code>`],
        ['Name', row.name],
        ['Routing number', html`<span data-testid="routing-number">${row.routingNumber}</span>`],
        ['Account number', `•••• ${row.accountNumber.slice(-4)}`],
        ['Account type', html`<span data-testid="account-type">${row.accountType}</span>`],
        ['Individual id', row.individualId],
        ['Created (clock)', bankWhen(row.createdAt)],
        ['Updated (clock)', bankWhen(row.updatedAt)],
      ])}</section>
${verificationPart(c, row)}
<section class="card"><h2>Corrections (notifications of change)</h2>${correctionsPart(row)}</section>
<p><a href="${LIST}">← All counterparties</a></p>`,
    );
  });
}
