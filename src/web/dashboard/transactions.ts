import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import { networkResponseDescription } from '../../modules/cards/network-responses.ts';
import { checkoutUrl } from '../../modules/collections/collections.resource.ts';
import { objectKindOf } from '../../modules/events/events.kinds.ts';
import { mccName } from '../../modules/issuing/issuing.controls.ts';
import type { PostingRow } from '../../modules/ledger/ledger.rows.ts';
import {
  type ActionBody,
  getTransactionView,
  performTransactionAction,
  type TransactionAction,
  type TransactionView,
  transactionStates,
} from '../../modules/transactions/transactions.detail.ts';
import {
  listTransactions,
  TRANSACTION_KINDS,
  type TransactionDetail,
  type TransactionFilters,
  type TransactionKind,
} from '../../modules/transactions/transactions.service.ts';
import {
  payoutArrivalAt,
  payoutInTransitAt,
  type TransferRow,
} from '../../modules/transfers/transfers.resource.ts';
import { bankWhen } from '../bank-time.ts';
import { nocList } from './counterparties.ts';
import { deliveryLog, fragmentUrl, redeliverForm, registerEventPages } from './events.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { transactionTable } from './tx-table.ts';
import {
  csrfField,
  details,
  type Flash,
  formValue,
  type Html,
  jsonBlock,
  money,
  objectLink,
  setFlash,
  stateBadge,
  takeFlash,
} from './ui.ts';

/**
 * The transactions pages: one list across every kind (filters: kind, state, creation dates in
 * UTC, search by id or reference; live), and the detail page of any transaction — its fields, the
 * actions its state allows, its state timeline, its ledger postings, and its events with each
 * webhook delivery and attempt (live: a state change or a new event re-renders it).
 */

const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

/** How a kind is named in a sentence ("the FX settlement is now paid"). */
const KIND_NAMES: Record<TransactionKind, string> = {
  collection: 'collection',
  card_payment: 'card payment',
  transfer: 'transfer',
  payout: 'payout',
  issuing_authorization: 'issuing authorization',
  fx_conversion: 'FX conversion',
  fx_settlement: 'FX settlement',
};
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What the filter form sent, as the form shows it again. */
interface ListForm {
  kind: string;
  state: string;
  from: string;
  to: string;
  q: string;
  starting_after: string;
  /** Rows a page (default PAGE_SIZE). */
  limit: string;
}

function listFormOf(c: DashContext): ListForm {
  const read = (name: keyof ListForm) => (c.req.query(name) ?? '').trim();
  return {
    kind: read('kind'),
    state: read('state'),
    from: read('from'),
    to: read('to'),
    q: read('q'),
    starting_after: read('starting_after'),
    limit: read('limit'),
  };
}

/** A date input's value (YYYY-MM-DD) as the UTC midnight starting it. */
function utcDay(value: string, param: string): Date | undefined {
  if (!value) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00.000Z`) : null;
  // 2026-02-31 is not a day (Date would roll it over to 3 March): it must read back as written.
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value)
    throw new SandbankError('parameter_invalid', { param, message: `${param}: choose a date (UTC).` });
  return day;
}

/** The form as the service's filters: the "to" day is included (the service's bound is exclusive). */
function filtersOf(form: ListForm) {
  const to = utcDay(form.to, 'to');
  const filters: TransactionFilters = {
    kinds: form.kind ? [form.kind] : undefined,
    state: form.state || undefined,
    created_from: utcDay(form.from, 'from'),
    created_to: to && new Date(to.getTime() + DAY_MS),
    q: form.q || undefined,
  };
  const page = parseInput(listQuerySchema, {
    limit: form.limit || PAGE_SIZE,
    ...(form.starting_after ? { starting_after: form.starting_after } : {}),
  });
  return { ...page, ...filters };
}

function listUrl(form: ListForm, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...form, ...extra })) if (value) params.set(name, value);
  const query = params.toString();
  return `/dashboard/transactions${query ? `?${query}` : ''}`;
}

function filterForm(form: ListForm): Html {
  return html`<form method="get" action="/dashboard/transactions" class="filters" data-testid="transaction-filters">
  ${form.limit ? html`<input type="hidden" name="limit" value="${form.limit}">` : ''}
  <div><label for="f-kind">Kind</label>
  <select id="f-kind" name="kind" data-testid="filter-kind">
    <option value="">All kinds</option>
    ${TRANSACTION_KINDS.map((kind) => html`<option value="${kind}" ${kind === form.kind ? 'selected' : ''}>${capitalized(KIND_NAMES[kind])}</option>`)}
  </select></div>
  <div><label for="f-state">State</label>
  <input id="f-state" name="state" list="f-states" value="${form.state}" autocomplete="off" placeholder="any" data-testid="filter-state">
  <datalist id="f-states">${transactionStates().map((state) => html`<option value="${state}">`)}</datalist></div>
  <div><label for="f-from">Created from (UTC)</label>
  <input id="f-from" type="date" name="from" value="${form.from}" data-testid="filter-from"></div>
  <div><label for="f-to">Created to (UTC, inclusive)</label>
  <input id="f-to" type="date" name="to" value="${form.to}" data-testid="filter-to"></div>
  <div><label for="f-q">Search</label>
  <input id="f-q" type="search" name="q" value="${form.q}" maxlength="100" placeholder="id or reference" data-testid="filter-q"></div>
  <div class="actions"><button type="submit" data-testid="filter-submit">Filter</button>
  <a href="/dashboard/transactions" data-testid="filter-clear">Clear</a></div>
</form>`;
}

/** The table of one page, with its pager: the live part of the list (and its fragment). */
async function listPart(c: DashContext, form: ListForm): Promise<Html> {
  try {
    const page = await listTransactions(await dashboardContext(c), filtersOf(form));
    const filtered = Boolean(form.kind || form.state || form.from || form.to || form.q);
    const table = transactionTable(page.data, filtered ? 'No transaction matches.' : undefined);
    return html`${table}
<p class="pager">${form.starting_after ? html`<a href="${listUrl({ ...form, starting_after: '' })}" data-testid="first-page">← Newest</a>` : ''}
${page.nextCursor ? html`<a href="${listUrl(form, { starting_after: page.nextCursor })}" data-testid="next-page">Older →</a>` : ''}</p>`;
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    return html`<div class="error" role="alert" data-testid="filter-error">${error.message}</div>`;
  }
}

async function listPage(c: DashContext): Promise<Response> {
  const form = listFormOf(c);
  if (c.req.query('fragment')) return c.html(await listPart(c, form));
  return shell(
    c,
    { title: 'Transactions', active: 'transactions' },
    html`<section class="card">${filterForm(form)}</section>
<section class="card">
  <div data-live-refresh="${fragmentUrl(c)}" data-testid="transactions-live">${await listPart(c, form)}</div>
</section>`,
  );
}

// ---------------------------------------------------------------------------------------------
// The detail page

type Rows = [string, unknown][];
type Variant<K extends TransactionKind> = Extract<TransactionDetail, { kind: K }>;

const joined = (...parts: (string | null | undefined)[]) => parts.filter(Boolean).join(': ') || null;

function networkResponse(code: string | null): string | null {
  return code ? `${code} (${networkResponseDescription(code) ?? 'unknown'})` : null;
}

function bankAccount(row: TransferRow): string {
  return `${row.counterpartyName} · routing ${row.routingNumber} · account ••••${row.accountLast4} (${row.accountType})`;
}

function refundsTable(tx: Variant<'card_payment'>): Html | null {
  const { refunds } = tx.row;
  if (refunds.length === 0) return null;
  return html`<ul data-testid="refunds">${refunds.map(
    (r) =>
      html`<li><span class="mono">${r.id}</span> ${stateBadge(r.state)} ${money(r.amount, r.currency)} ${r.reason ?? ''} ${r.failureReason ?? ''} ${bankWhen(r.createdAt)}</li>`,
  )}</ul>`;
}

/** When a collection's bank payment (an ACH debit) settled or is expected to, in bank time. */
function debitTiming(debit: Variant<'collection'>['row']['debits'][number]): Html | string {
  if (debit.settledAt) return html` · settled ${bankWhen(debit.settledAt)}`;
  if (debit.expectedSettlementAt && !debit.returnedAt && debit.state !== 'failed')
    return html` · settles ${bankWhen(debit.expectedSettlementAt)}`;
  return '';
}

function collectionPayments(tx: Variant<'collection'>): Html | null {
  const { cardPayments, debits } = tx.row;
  if (cardPayments.length + debits.length === 0) return null;
  const item = (p: { id: string; state: string; amount: bigint; currency: string }, timing: Html | string) =>
    html`<li>${objectLink(p.id)} ${stateBadge(p.state, p.id)} ${money(p.amount, p.currency)}${timing}</li>`;
  return html`<ul data-testid="payments">${cardPayments.map((p) => item(p, ''))}${debits.map((d) => item(d, debitTiming(d)))}</ul>`;
}

function collectionRows(tx: Variant<'collection'>, publicUrl: string): Rows {
  const r = tx.row;
  return [
    [
      'Checkout',
      html`<a href="${checkoutUrl(publicUrl, r)}" target="_blank" rel="noopener" data-testid="checkout-link">Open the checkout page ↗</a>`,
    ],
    ['Payer email', r.email],
    ['Redirect URL', r.redirectUrl],
    ['Expires', bankWhen(r.expiresAt)],
    ['Failure', joined(r.failureCode, r.failureMessage)],
    ['Payments', collectionPayments(tx)],
  ];
}

/** Its dispute, or (captured, not disputed) the link that simulates one. */
function disputeCell(r: Variant<'card_payment'>['row']): Html | null {
  if (r.disputeId) return html`<span data-testid="payment-dispute">${objectLink(r.disputeId)}</span>`;
  if (r.state !== 'captured' && r.state !== 'partially_refunded') return null;
  return html`<a href="/dashboard/disputes/new?card_payment=${encodeURIComponent(r.id)}" data-testid="simulate-dispute-link">Simulate a dispute →</a>`;
}

function cardPaymentRows(tx: Variant<'card_payment'>): Rows {
  const r = tx.row;
  return [
    ['Card', `${r.brand} •••• ${r.last4} · exp ${r.expMonth}/${r.expYear}`],
    ['Captured', money(r.amountCaptured, r.currency)],
    ['Refunded', money(r.amountRefunded, r.currency)],
    ['3-D Secure', r.threeDSecure],
    ['Network response', networkResponse(r.networkResponseCode)],
    ['Decline', joined(r.declineCode, r.failureMessage)],
    ['Authorization expires', r.authorizationExpiresAt && bankWhen(r.authorizationExpiresAt)],
    ['Collection', r.collectionId && objectLink(r.collectionId)],
    ['Refunds', refundsTable(tx)],
    ['Dispute', disputeCell(r)],
    [
      'Early fraud warning',
      r.earlyFraudWarningAt &&
        html`<span data-testid="early-fraud-warning">unauthorized use of card · ${bankWhen(r.earlyFraudWarningAt)}</span>`,
    ],
  ];
}

function transferRows(r: Variant<'transfer'>['row']): Rows {
  return [
    ['Rail', `${r.rail} ${r.direction}`],
    ['Counterparty', bankAccount(r)],
    ['SEC code', r.secCode],
    ['Expected submission', r.expectedSubmissionAt && bankWhen(r.expectedSubmissionAt)],
    ['Submitted', r.submittedAt && bankWhen(r.submittedAt)],
    ['Expected settlement', r.expectedSettlementAt && bankWhen(r.expectedSettlementAt)],
    ['Settled', r.settledAt && bankWhen(r.settledAt)],
    ['Returned', r.returnedAt && bankWhen(r.returnedAt)],
    ['Return', joined(r.returnCode, r.returnReason)],
    ['Return untimely', r.returnUntimely ? 'yes: arrived after its time frame' : null],
    ['Dishonored', r.dishonoredAt && bankWhen(r.dishonoredAt)],
    ['Dishonor', joined(r.dishonorCode, r.dishonorReason)],
    ['Contested', r.contestedAt && bankWhen(r.contestedAt)],
    ['Contest', joined(r.contestCode, r.contestReason)],
    ['Failure', r.failureReason],
    ['Collection', r.collectionId && objectLink(r.collectionId)],
    ['Saved counterparty', r.counterpartyId && objectLink(r.counterpartyId)],
    ['Notification of change', r.notificationsOfChange.length ? nocList(r.notificationsOfChange) : null],
  ];
}

function payoutRows(r: Variant<'payout'>['row']): Rows {
  const inTransit = payoutInTransitAt(r);
  const arrival = payoutArrivalAt(r);
  return [
    ['Method', r.rail],
    ['Destination', bankAccount(r)],
    ['Expected submission', r.expectedSubmissionAt && bankWhen(r.expectedSubmissionAt)],
    ['In transit', inTransit && bankWhen(inTransit)],
    ['Arrival', arrival && bankWhen(arrival)],
    ['Paid', r.settledAt && bankWhen(r.settledAt)],
    ['Returned', r.returnedAt && bankWhen(r.returnedAt)],
    ['Failure', joined(r.returnCode ?? r.outcomeCode, r.returnReason ?? r.failureReason)],
    ['Return untimely', r.returnUntimely ? 'yes: arrived after its time frame' : null],
    ['Dishonored', r.dishonoredAt && bankWhen(r.dishonoredAt)],
    ['Dishonor', joined(r.dishonorCode, r.dishonorReason)],
    ['Contested', r.contestedAt && bankWhen(r.contestedAt)],
    ['Contest', joined(r.contestCode, r.contestReason)],
  ];
}

function authorizationRows(r: Variant<'issuing_authorization'>['row']): Rows {
  return [
    ['Virtual card', objectLink(r.cardId)],
    [
      'Merchant',
      `${r.merchantName} · MCC ${r.merchantMcc} (${mccName(r.merchantMcc) ?? 'other'}) · ${r.merchantCountry}`,
    ],
    ['Reversed', money(r.amountReversed, r.currency)],
    ['Captured', money(r.amountCaptured, r.currency)],
    ['Refunded', money(r.amountRefunded, r.currency)],
    ['Decline', joined(r.declineReason, r.declineInterval)],
    ['Network response', networkResponse(r.networkResponseCode)],
    ['Card payment', r.cardPaymentId && objectLink(r.cardPaymentId)],
    ['Expires', r.expiresAt && bankWhen(r.expiresAt)],
  ];
}

function conversionRows(r: Variant<'fx_conversion'>['row']): Rows {
  return [
    ['Quote', objectLink(r.quoteId)],
    ['Converted to', money(r.targetAmount, r.targetCurrency)],
    ['Rate', r.rate],
    ['Fee', money(r.fee, r.currency)],
  ];
}

function settlementRows(r: Variant<'fx_settlement'>['row']): Rows {
  const source = r.sourceCurrency ?? 'USD';
  return [
    ['Funding', r.quoteId ? html`conversion, quote ${objectLink(r.quoteId)}` : 'balance'],
    ['Source', r.sourceAmount === null ? null : money(r.sourceAmount, source)],
    ['Rate', r.rate],
    ['Fee', r.fee === null ? null : money(r.fee, source)],
    ['Destination', jsonBlock(r.destination)],
    ['Expected paid', bankWhen(r.expectedPaidAt)],
    ['Converted', r.convertedAt && bankWhen(r.convertedAt)],
    ['Paid', r.paidAt && bankWhen(r.paidAt)],
    ['Failed', r.failedAt && bankWhen(r.failedAt)],
    ['Failure', joined(r.failureCode, r.failureReason)],
  ];
}

/** The fields only this kind has, in the order a person reads them. */
function kindRows(tx: TransactionDetail, publicUrl: string): Rows {
  switch (tx.kind) {
    case 'collection':
      return collectionRows(tx, publicUrl);
    case 'card_payment':
      return cardPaymentRows(tx);
    case 'transfer':
      return transferRows(tx.row);
    case 'payout':
      return payoutRows(tx.row);
    case 'issuing_authorization':
      return authorizationRows(tx.row);
    case 'fx_conversion':
      return conversionRows(tx.row);
    case 'fx_settlement':
      return settlementRows(tx.row);
  }
}

/** The fields of a transaction of any kind: the common ones, its kind's, then its metadata. */
function summaryRows(tx: TransactionDetail, publicUrl: string): Rows {
  const r = tx.row;
  return [
    ['Id', html`<code data-testid="transaction-id">${r.id}</code>`],
    ['Kind', KIND_NAMES[tx.kind]],
    ['State', stateBadge(r.state, r.id)],
    ['Amount', html`<span data-testid="amount">${money(r.amount, r.currency)}</span>`],
    ['Reference', html`<span data-testid="reference">${r.reference ?? ''}</span>`],
    [
      'Description',
      'description' in r ? html`<span data-testid="description">${r.description ?? ''}</span>` : null,
    ],
    ['Created (clock)', bankWhen(r.createdAt)],
    ['Updated (clock)', bankWhen(r.updatedAt)],
    ...kindRows(tx, publicUrl),
    ['Metadata', 'metadata' in r ? html`<div data-testid="metadata">${jsonBlock(r.metadata)}</div>` : null],
  ];
}

/** How each action shows: its label, the input it takes (the REST body field) and its look. */
const ACTION_UI: Record<
  TransactionAction,
  {
    label: string;
    input?: { name: 'amount' | 'code'; placeholder: string };
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

/** Everything below the title: re-rendered live when the object changes or gets an event. */
function detailPart(c: DashContext, view: TransactionView, flash: Flash | null): Html {
  return html`<section class="card">${details(summaryRows(view.transaction, c.get('deps').publicUrl))}</section>
${actionsPart(c, view, flash)}
${timelinePart(view)}
${postingsPart(view.postings, view.transaction.row.id)}
${eventsPart(c, view)}`;
}

async function detailPage(c: DashContext): Promise<Response> {
  const fragment = Boolean(c.req.query('fragment'));
  // An unknown id throws resource_not_found: the dashboard's error handler answers the 404 page.
  const view = await getTransactionView(await dashboardContext(c), c.req.param('id') ?? '');
  if (fragment) return c.html(detailPart(c, view, null));
  const { row, kind } = view.transaction;
  const flash = takeFlash(c);
  const title = `${capitalized(KIND_NAMES[kind])} · ${money(row.amount, row.currency)}`;
  return shell(
    c,
    { title, active: 'transactions', flash },
    html`<div data-live-refresh="${detailPath(row.id)}?fragment=1" data-live-for="${row.id}" data-live-on="any" data-testid="transaction-live">
${detailPart(c, view, flash)}
</div>`,
  );
}

/** The REST body of an action: the fields its form has (amount, code), when filled in. */
function actionBody(form: Record<string, string>): ActionBody {
  const body: ActionBody = {};
  for (const name of ['amount', 'code']) {
    const value = form[name]?.trim();
    if (value) body[name] = value;
  }
  if (form.untimely === 'true') body.untimely = true;
  return body;
}

async function runAction(c: DashContext): Promise<Response> {
  const form = await formOf(c);
  const id = c.req.param('id') ?? '';
  const action = c.req.param('action') ?? '';
  try {
    const after = await performTransactionAction(await dashboardContext(c), id, action, actionBody(form));
    const label = ACTION_UI[action as TransactionAction]?.label ?? action;
    setFlash(c, { notice: `${label}: this ${KIND_NAMES[after.kind]} is now ${after.row.state}.` });
  } catch (error) {
    if (!(error instanceof SandbankError)) throw error;
    setFlash(c, { error: error.message, form });
  }
  return c.redirect(objectKindOf(id) ? detailPath(id) : '/dashboard/transactions', 303);
}

export function registerTransactionPages(app: Hono<DashEnv>): void {
  app.get('/transactions', listPage);
  app.get('/transactions/:id', detailPage);
  app.post('/transactions/:id/actions/:action', runAction);
  registerEventPages(app);
}
