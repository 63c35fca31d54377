import { html } from 'hono/html';
import type { ServiceContext } from '../../modules/context.ts';
import { listAuthorizations } from '../../modules/issuing/issuing.read.ts';
import type { IssuingAuthorizationRow, VirtualCardRow } from '../../modules/issuing/issuing.resource.ts';
import { cardPath, type StoredControls } from './card-forms.ts';
import { metadataList, olderLink } from './form-submit.ts';
import type { DashContext } from './session.ts';
import { actionButton, details, type Flash, type Html, money, objectLink, stateBadge, when } from './ui.ts';

/**
 * How virtual cards show: the list's table, a card's details with its state actions, its number
 * and CVC shown once after issuing, and its authorizations.
 */

// ---------------------------------------------------------------------------------------------
// The number and CVC, shown once: on the card's page right after creation (as the create response
// is the API's one showing), through the flash's secrets shown once.

export interface Secret {
  number: string;
  cvc: string;
}

export function secretOf(flash: Flash | null, cardId: string): Secret | null {
  const once = flash?.once;
  return once?.card_id === cardId && once.number && once.cvc ? { number: once.number, cvc: once.cvc } : null;
}

export function limitsSummary(controls: StoredControls): Html {
  const parts = controls.limits.map(
    (limit) => `${limit.interval.replace('_', ' ')} ${money(BigInt(limit.amount), 'USD')}`,
  );
  if (controls.allowed_mccs) parts.push(`only MCC ${controls.allowed_mccs.join(', ')}`);
  if (controls.blocked_mccs.length > 0) parts.push(`blocks MCC ${controls.blocked_mccs.join(', ')}`);
  return parts.length > 0 ? html`${parts.join(' · ')}` : html`<span class="muted">no limits</span>`;
}

export const masked = (card: VirtualCardRow) =>
  `${card.brand === 'visa' ? 'Visa' : 'Mastercard'} •••• ${card.last4}`;

export function cardsTable(cards: VirtualCardRow[]): Html {
  if (cards.length === 0) return html`<p class="muted" data-testid="no-cards">No virtual cards yet.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="cards" data-narrow-hide="2 4 5">
<thead><tr><th>Card</th><th>Cardholder</th><th>State</th><th>Limits</th><th>Created (clock)</th></tr></thead>
<tbody>${cards.map(
    (card) => html`<tr data-testid="card-row">
  <td><a href="${cardPath(card.id)}">${masked(card)}</a><br><span class="mono muted">${card.id}</span></td>
  <td>${card.cardholderName}</td>
  <td>${stateBadge(card.state)}</td>
  <td>${limitsSummary(card.spendingControls)}</td>
  <td>${when(card.createdAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

export function secretOnce(secret: Secret, card: VirtualCardRow): Html {
  const grouped = secret.number.replace(/(\d{4})(?=\d)/g, '$1 ');
  return html`<section class="card keys-once" data-testid="card-secret-once">
  <h2>Card number and CVC</h2>
  <p>Copy them now: the dashboard shows them only this once (GET /v1/virtual_cards/{id}/details reads them over the API).</p>
  ${details([
    ['Number', html`<code data-testid="card-number">${grouped}</code>`],
    ['CVC', html`<code data-testid="card-cvc">${secret.cvc}</code>`],
    ['Expiry', `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`],
  ])}
</section>`;
}

function stateActions(c: DashContext, card: VirtualCardRow): Html {
  const action = `${cardPath(card.id)}/state`;
  const to = (state: string, label: string, className = 'secondary') =>
    actionButton(c, action, label, { className, fields: { state }, testId: `card-${state}` });
  if (card.state === 'canceled')
    return html`<p class="muted" data-testid="card-final">This card is canceled (final).</p>`;
  return html`<div class="actions">
  ${card.state === 'active' ? to('frozen', 'Freeze') : to('active', 'Unfreeze')}
  ${to('canceled', 'Cancel card', 'danger')}
</div>`;
}

export function cardDetails(c: DashContext, card: VirtualCardRow): Html {
  return html`<section class="card">
  <h2>${masked(card)}</h2>
  ${details([
    ['Id', html`<span class="mono">${card.id}</span>`],
    ['State', html`<span data-testid="card-state">${stateBadge(card.state)}</span>`],
    ['Number', html`<span data-testid="card-masked">•••• •••• •••• ${card.last4}</span>`],
    ['Expiry', `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`],
    ['Cardholder', html`<span data-testid="card-cardholder">${card.cardholderName}</span>`],
    ['Controls', html`<span data-testid="card-limits">${limitsSummary(card.spendingControls)}</span>`],
    ['Metadata', metadataList(card.metadata)],
    ['Issued', when(card.createdAt)],
    ['Updated', when(card.updatedAt)],
  ])}
  ${stateActions(c, card)}
</section>`;
}

function declineText(row: IssuingAuthorizationRow): string {
  const interval = row.declineInterval ? ` · ${row.declineInterval}` : '';
  return `${row.declineReason ?? 'declined'}${interval} · ISO ${row.networkResponseCode}`;
}

function authorizationsTable(rows: IssuingAuthorizationRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="no-authorizations">No authorizations yet.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="authorizations" data-narrow-hide="4 5 6">
<thead><tr><th>Id</th><th>State</th><th class="num">Amount</th><th>Response</th><th>Merchant</th><th>Created (clock)</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-live-row="${row.id}" data-testid="authorization-row">
  <td>${objectLink(row.id)}</td>
  <td>${stateBadge(row.state, row.id)}</td>
  <td class="num">${money(row.amount, row.currency)}</td>
  <td>${row.state === 'declined' ? html`<span data-testid="decline-reason">${declineText(row)}</span>` : html`<span class="muted">ISO ${row.networkResponseCode}</span>`}</td>
  <td>${row.merchantName} <span class="muted small">MCC ${row.merchantMcc} · ${row.merchantCountry}</span></td>
  <td>${when(row.createdAt)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

/** A page of the card's authorizations, newest first, and the link to older ones. */
export async function authorizations(
  svc: ServiceContext,
  cardId: string,
  after: string | undefined,
): Promise<Html> {
  const page = await listAuthorizations(svc, cardId, { limit: 50, starting_after: after });
  return html`${authorizationsTable(page.data)}${olderLink(cardPath(cardId), page.nextCursor)}`;
}

export function authorizationOutcome(row: IssuingAuthorizationRow): { notice?: string; error?: string } {
  const what = `${money(row.amount, row.currency)} at ${row.merchantName} (${row.id})`;
  if (row.state === 'declined')
    return { error: `Declined: ${what} — ${declineText(row).replaceAll(' · ', ', ')}.` };
  return { notice: `Approved: ${what}; the amount is held on available USD.` };
}
