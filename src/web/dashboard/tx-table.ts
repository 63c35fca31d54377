import { html } from 'hono/html';
import { objectKindOf } from '../../modules/events/events.kinds.ts';
import type { TransactionRow } from '../../modules/transactions/transactions.service.ts';
import { bankWhen } from '../bank-time.ts';
import { type Html, money, objectLink, stateBadge } from './ui.ts';

/**
 * The table of transactions the home page and the transactions list share. Each row's state badge
 * carries data-live-state, so dashboard.js updates it when graphql-ws reports a change; the
 * surrounding element's data-live-refresh reloads the rows (new objects appear) the same way.
 */
export function transactionTable(rows: TransactionRow[], empty = 'No transactions yet.'): Html {
  if (rows.length === 0) return html`<p class="muted" data-testid="no-transactions">${empty}</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="transactions" data-narrow-hide="2 5 6">
<thead><tr><th>Id</th><th>Kind</th><th>State</th><th class="num">Amount</th><th>Reference</th><th>Created (clock)</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-live-row="${row.id}">
  <td>${objectLink(row.id)}</td>
  <td>${objectKindOf(row.id) ?? ''}</td>
  <td>${stateBadge(row.state, row.id)}</td>
  <td class="num">${money(row.amount, row.currency)}</td>
  <td class="ref">${row.reference ?? ''}</td>
  <td>${bankWhen(row.createdAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}
