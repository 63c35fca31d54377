import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { parseInput } from '../../kernel/validation.ts';
import { transactionStates } from '../../modules/transactions/transactions.detail.ts';
import {
  listTransactions,
  TRANSACTION_KINDS,
  type TransactionFilters,
} from '../../modules/transactions/transactions.service.ts';
import { fragmentUrl, registerEventPages } from './events.ts';
import { shell } from './layout.ts';
import { type DashContext, type DashEnv, dashboardContext } from './session.ts';
import { detailPage, runAction } from './transaction-detail.ts';
import { capitalized, KIND_NAMES } from './transaction-fields.ts';
import { transactionTable } from './tx-table.ts';
import type { Html } from './ui.ts';

/**
 * The transactions pages: one list across every kind (filters: kind, state, creation dates in
 * UTC, search by id or reference; live), and the detail page of any transaction
 * (transaction-detail.ts, its fields in transaction-fields.ts).
 */

const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

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

export function registerTransactionPages(app: Hono<DashEnv>): void {
  app.get('/transactions', listPage);
  app.get('/transactions/:id', detailPage);
  app.post('/transactions/:id/actions/:action', runAction);
  registerEventPages(app);
}
