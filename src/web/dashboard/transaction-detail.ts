import { html } from 'hono/html';
import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import { type BankMessage, messagesOf } from '../../modules/bank-messages/bank-messages.read.ts';
import { captureSchema, refundSchema } from '../../modules/card-payments/card-payments.schema.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { objectKindOf } from '../../modules/events/events.kinds.ts';
import { failSettlementSchema } from '../../modules/fx/fx.schema.ts';
import { authorizationAmountSchema } from '../../modules/issuing/issuing.schema.ts';
import type { PostingRow } from '../../modules/ledger/ledger.rows.ts';
import { refuseNocSchema, simulateNocSchema } from '../../modules/nocs/nocs.schema.ts';
import {
  type ActionBody,
  getTransactionView,
  performTransactionAction,
  type TransactionAction,
  type TransactionView,
} from '../../modules/transactions/transactions.detail.ts';
import {
  contestDishonoredReturnSchema,
  dishonorReturnSchema,
  returnTransferSchema,
} from '../../modules/transfers/transfers.schema.ts';
import { bankWhen } from '../bank-time.ts';
import { deliveryLog, redeliverForm } from './events.ts';
import { formBody } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashContext, dashboardContext, formOf } from './session.ts';
import { capitalized, KIND_NAMES, summaryRows } from './transaction-fields.ts';
import {
  csrfField,
  details,
  type Flash,
  formValue,
  type Html,
  money,
  objectLink,
  setFlash,
  stateBadge,
  takeFlash,
} from './ui.ts';

/**
 * A transaction's detail page: its fields, the actions its state allows (each a form posting the
 * REST body field it takes), its state timeline, its ledger postings, and its events with each
 * webhook delivery and attempt (live: a state change or a new event re-renders it).
 */

/** How each action shows: its label, the input it takes (the REST body field) and its look. */
const ACTION_UI: Record<
  TransactionAction,
  {
    label: string;
    input?: { name: 'amount' | 'code' | 'reason'; placeholder: string };
    /** A checkbox sent as `true` when ticked. */
    flag?: { name: 'untimely'; label: string };
    danger?: boolean;
  }
> = {
  capture: { label: 'Capture', input: { name: 'amount', placeholder: 'amount (all)' } },
  void: { label: 'Void', danger: true },
  refund: { label: 'Refund', input: { name: 'amount', placeholder: 'amount (all)' } },
  complete_3ds: { label: '3-D Secure: succeed' },
  fail_3ds: { label: '3-D Secure: fail', danger: true },
  cancel: { label: 'Cancel', danger: true },
  submit: { label: 'Simulate submit' },
  settle: { label: 'Simulate settle' },
  return: {
    label: 'Simulate return',
    input: { name: 'code', placeholder: 'code (R01)' },
    flag: { name: 'untimely', label: 'even after its time frame (untimely)' },
    danger: true,
  },
  dishonor_return: {
    label: 'Simulate dishonored return',
    input: { name: 'code', placeholder: 'code (R61-R70)' },
    danger: true,
  },
  contest_dishonored_return: {
    label: 'Simulate contested dishonor',
    input: { name: 'code', placeholder: 'code (R71-R77)' },
    danger: true,
  },
  reverse: { label: 'Reverse', input: { name: 'amount', placeholder: 'amount (all)' }, danger: true },
  pay: { label: 'Simulate pay' },
  fail: { label: 'Simulate failure', input: { name: 'code', placeholder: 'code (AC04)' }, danger: true },
  notify_change: {
    label: 'Simulate notification of change',
    input: { name: 'code', placeholder: 'code (C01)' },
  },
  refuse_change: {
    label: 'Refuse notification of change',
    input: { name: 'code', placeholder: 'code (C61)' },
    danger: true,
  },
  wsud_copy: { label: 'Request a copy of the written statement' },
  recall: { label: 'Recall the wire', input: { name: 'reason', placeholder: 'reason (DUPL)' }, danger: true },
};

const detailPath = (id: string) => `/dashboard/transactions/${encodeURIComponent(id)}`;

function actionForm(c: DashContext, id: string, action: TransactionAction, flash: Flash | null): Html {
  const ui = ACTION_UI[action];
  const input = ui.input;
  return html`<form method="post" action="${detailPath(id)}/actions/${action}" data-testid="action-${action}">
  ${csrfField(c)}
  ${input ? html`<input name="${input.name}" value="${formValue(flash, input.name)}" placeholder="${input.placeholder}" aria-label="${ui.label}: ${input.placeholder}" autocomplete="off" data-testid="action-${action}-${input.name}">` : ''}
  ${ui.flag ? html`<label class="small"><input type="checkbox" name="${ui.flag.name}" value="true" data-testid="action-${action}-${ui.flag.name}"> ${ui.flag.label}</label>` : ''}
  <button type="submit" class="${ui.danger ? 'danger small' : 'small'}" data-testid="action-${action}-submit">${ui.label}</button>
</form>`;
}

function actionsPart(c: DashContext, view: TransactionView, flash: Flash | null): Html {
  const { row, kind } = view.transaction;
  return html`<section class="card" data-testid="actions"><h2>Actions</h2>
  ${
    view.actions.length
      ? html`<div class="actions">${view.actions.map((action) => actionForm(c, row.id, action, flash))}</div>`
      : html`<p class="muted" data-testid="no-actions">None: this ${KIND_NAMES[kind]} is ${row.state}.</p>`
  }
</section>`;
}

function timelinePart(view: TransactionView): Html {
  return html`<section class="card"><h2>State timeline</h2>
<ol class="timeline" data-testid="timeline">${view.timeline.map(
    (entry) => html`<li data-testid="timeline-entry" data-state="${entry.state}">
  ${stateBadge(entry.state)} ${bankWhen(entry.at)} <span class="muted small"><code>${entry.eventType}</code> ${objectLink(entry.eventId)}</span>
</li>`,
  )}</ol></section>`;
}

function delta(minor: bigint, currency: string): string {
  return minor === 0n ? '' : `${minor > 0n ? '+' : ''}${money(minor, currency)}`;
}

/** A posting's source: its type, and its id when it is another object (a refund, a payment). */
function sourceOf(posting: PostingRow, ownId: string): string {
  return posting.sourceId === ownId ? posting.sourceType : `${posting.sourceType} ${posting.sourceId}`;
}

function postingsPart(postings: PostingRow[], ownId: string): Html {
  const table = postings.length
    ? html`<div class="table-wrap"><table class="list" data-testid="postings" data-narrow-hide="1 2 7 8">
<thead><tr><th>Id</th><th>Type</th><th>State</th><th class="num">Available</th><th class="num">Pending</th><th class="num">Reserved</th><th>Source</th><th>Created (clock)</th></tr></thead>
<tbody>${postings.map(
        (p) => html`<tr data-testid="posting">
  <td>${p.id}</td><td>${p.type}</td><td>${stateBadge(p.state)}</td>
  <td class="num">${delta(p.availableDelta, p.currency)}</td><td class="num">${delta(p.pendingDelta, p.currency)}</td><td class="num">${delta(p.reservedDelta, p.currency)}</td>
  <td>${sourceOf(p, ownId)}</td><td>${bankWhen(p.createdAt)}</td>
</tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted" data-testid="no-postings">No ledger posting (nothing moved on a balance).</p>`;
  return html`<section class="card"><h2>Ledger postings</h2>${table}</section>`;
}

function eventsPart(c: DashContext, view: TransactionView): Html {
  const back = detailPath(view.transaction.row.id);
  return html`<section class="card"><h2>Events and webhook deliveries</h2>${view.events.map(
    ({ event, deliveries }) => html`<article class="event" data-testid="event">
  <h3>${objectLink(event.id)} <code>${event.type}</code> ${bankWhen(event.createdAt)} ${redeliverForm(c, event.id, back)}</h3>
  ${deliveryLog(deliveries)}
</article>`,
  )}</section>`;
}

/** The ISO 20022 messages of an instant or wire credit transfer, each with its download. */
function messagesPart(messages: BankMessage[]): Html {
  if (messages.length === 0) return html``;
  return html`<section class="card" data-testid="iso20022-messages"><h2>ISO 20022 messages</h2><ul>${messages.map(
    (message) =>
      html`<li data-testid="iso20022-message"><code>${message.definition}</code> ${message.direction} ${bankWhen(message.at)} <a href="/dashboard/iso20022_messages/${encodeURIComponent(message.id)}" download>XML</a></li>`,
  )}</ul></section>`;
}

/** Everything below the title: re-rendered live when the object changes or gets an event. */
function detailPart(
  c: DashContext,
  view: TransactionView,
  flash: Flash | null,
  messages: BankMessage[],
): Html {
  return html`<section class="card">${details(summaryRows(view.transaction, c.get('deps').publicUrl))}</section>
${actionsPart(c, view, flash)}
${timelinePart(view)}
${postingsPart(view.postings, view.transaction.row.id)}
${messagesPart(messages)}
${eventsPart(c, view)}`;
}

/** The messages of a transfer, payout or inbound transfer (none for other transactions). */
function messagesOfTransaction(svc: ServiceContext, id: string): Promise<BankMessage[]> {
  return /^(tr|po|itr)_/.test(id) ? messagesOf(svc, id) : Promise.resolve([]);
}

export async function detailPage(c: DashContext): Promise<Response> {
  const fragment = Boolean(c.req.query('fragment'));
  // An unknown id throws resource_not_found: the dashboard's error handler answers the 404 page.
  const svc = await dashboardContext(c);
  const view = await getTransactionView(svc, c.req.param('id') ?? '');
  const messages = await messagesOfTransaction(svc, view.transaction.row.id);
  if (fragment) return c.html(detailPart(c, view, null, messages));
  const { row, kind } = view.transaction;
  const flash = takeFlash(c);
  const title = `${capitalized(KIND_NAMES[kind])} · ${money(row.amount, row.currency)}`;
  return shell(
    c,
    { title, active: 'transactions', flash },
    html`<div data-live-refresh="${detailPath(row.id)}?fragment=1" data-live-for="${row.id}" data-live-on="any" data-testid="transaction-live">
${detailPart(c, view, flash, messages)}
</div>`,
  );
}

/**
 * The bodies the actions take (their REST operations' schemas). An action's form is read by them as
 * REST reads a form body (`untimely=true` a boolean, a blank amount left out); the transactions
 * module then parses it with the one schema of the action and the transaction's kind.
 */
const ACTION_BODIES = z.union([
  captureSchema,
  refundSchema,
  authorizationAmountSchema,
  returnTransferSchema,
  dishonorReturnSchema,
  contestDishonoredReturnSchema,
  simulateNocSchema,
  refuseNocSchema,
  failSettlementSchema,
]);

export async function runAction(c: DashContext): Promise<Response> {
  const form = await formOf(c);
  const id = c.req.param('id') ?? '';
  const action = c.req.param('action') ?? '';
  try {
    const body = formBody(ACTION_BODIES, form) as ActionBody;
    const after = await performTransactionAction(await dashboardContext(c), id, action, body);
    const label = ACTION_UI[action as TransactionAction]?.label ?? action;
    setFlash(c, { notice: `${label}: this ${KIND_NAMES[after.kind]} is now ${after.row.state}.` });
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    setFlash(c, { error: error.message, form });
  }
  return c.redirect(objectKindOf(id) ? detailPath(id) : '/dashboard/transactions', 303);
}
