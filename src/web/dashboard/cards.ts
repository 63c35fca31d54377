import type { Hono } from 'hono';
import { html } from 'hono/html';
import mccReference from '../../../reference/mcc.json' with { type: 'json' };
import { formatDecimal } from '../../kernel/money.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { simulateAuthorization } from '../../modules/issuing/issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from '../../modules/issuing/issuing.cards.ts';
import { LIMIT_INTERVALS, type LimitInterval } from '../../modules/issuing/issuing.controls.ts';
import { getVirtualCard, listAuthorizations, listVirtualCards } from '../../modules/issuing/issuing.read.ts';
import type { IssuingAuthorizationRow, VirtualCardRow } from '../../modules/issuing/issuing.resource.ts';
import {
  authorizationFieldCodes,
  createVirtualCardSchema,
  simulateAuthorizationSchema,
  updateVirtualCardFieldCodes,
  updateVirtualCardSchema,
  virtualCardFieldCodes,
} from '../../modules/issuing/issuing.schema.ts';
import {
  cursorOf,
  metadataEditor,
  metadataFromForm,
  metadataList,
  olderLink,
  selectOf,
  submitForm,
} from './form-submit.ts';
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
 * Virtual cards in the dashboard: the list and the issue form with its limits editor,
 * and a card's page — its controls, freeze / unfreeze / cancel, "edit limits", "simulate
 * authorization" and its authorizations. Every form calls the service REST calls
 * (createVirtualCard, updateVirtualCard, simulateAuthorization) with the body REST takes.
 */

/** A card's spending controls as its row holds them. */
type StoredControls = VirtualCardRow['spendingControls'];

const CARDS = '/dashboard/cards';
const cardPath = (id: string) => `${CARDS}/${encodeURIComponent(id)}`;

const INTERVAL_LABELS: Record<LimitInterval, string> = {
  per_authorization: 'Per authorization',
  daily: 'Daily (UTC day)',
  weekly: 'Weekly (from Monday)',
  monthly: 'Monthly',
  yearly: 'Yearly',
  all_time: 'All time',
};

// ---------------------------------------------------------------------------------------------
// The number and CVC, shown once: on the card's page right after creation (as the create response
// is the API's one showing), through the flash's secrets shown once.

interface Secret {
  number: string;
  cvc: string;
}

function secretOf(flash: Flash | null, cardId: string): Secret | null {
  const once = flash?.once;
  return once?.card_id === cardId && once.number && once.cvc ? { number: once.number, cvc: once.cvc } : null;
}

// ---------------------------------------------------------------------------------------------
// Forms → the bodies REST takes

const codesOf = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter((code) => code !== '');

/** spending_controls of the limits editor: blank amounts are no limit, blank MCC lists are left out. */
function controlsFromForm(form: Record<string, string>): Record<string, unknown> {
  const limits = LIMIT_INTERVALS.flatMap((interval) => {
    const amount = (form[`limit_${interval}`] ?? '').trim();
    return amount ? [{ amount, interval }] : [];
  });
  const allowed = codesOf(form.allowed_mccs);
  const blocked = codesOf(form.blocked_mccs);
  return {
    limits,
    ...(allowed.length > 0 ? { allowed_mccs: allowed } : {}),
    ...(blocked.length > 0 ? { blocked_mccs: blocked } : {}),
  };
}

function createBody(form: Record<string, string>): Record<string, unknown> {
  const metadata = metadataFromForm(form);
  return {
    brand: form.brand,
    cardholder_name: form.cardholder_name,
    spending_controls: controlsFromForm(form),
    ...(metadata ? { metadata } : {}),
  };
}

/** A card update's body, parsed as POST /v1/virtual_cards/{id} parses it. */
function updateBody(body: Record<string, unknown>) {
  return parseInput(updateVirtualCardSchema, body, updateVirtualCardFieldCodes);
}

function authorizationBody(form: Record<string, string>): Record<string, unknown> {
  const country = (form.country ?? '').trim().toUpperCase();
  return {
    amount: (form.amount ?? '').trim(),
    merchant: {
      name: form.merchant_name ?? '',
      mcc: (form.mcc ?? '').trim(),
      ...(country ? { country } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** Each interval's limit as the editor shows it (the lowest, when several share an interval). */
function limitValues(controls: StoredControls | null): Partial<Record<string, string>> {
  const values: Partial<Record<string, bigint>> = {};
  for (const limit of controls?.limits ?? []) {
    const amount = BigInt(limit.amount);
    const known = values[limit.interval];
    if (known === undefined || amount < known) values[limit.interval] = amount;
  }
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, formatDecimal(v ?? 0n, 'USD')]));
}

/** One row per interval with an amount (blank: no limit), then the allowed and blocked MCCs. */
function controlsEditor(flash: Flash | null, controls: StoredControls | null): Html {
  const current = limitValues(controls);
  return html`<div data-testid="limits-editor">
  <h3>Spending limits <span class="muted small">USD; blank = no limit; every limit applies</span></h3>
  <div class="row">${LIMIT_INTERVALS.map(
    (interval) => html`<div>
    <label for="limit_${interval}">${INTERVAL_LABELS[interval]}</label>
    <input id="limit_${interval}" name="limit_${interval}" inputmode="decimal" placeholder="no limit" value="${formValue(flash, `limit_${interval}`, current[interval] ?? '')}" data-testid="limit-${interval}">
  </div>`,
  )}</div>
  <div class="row">
    <div><label for="allowed_mccs">Allowed MCCs <span class="muted small">only these; blank = all</span></label>
    <input id="allowed_mccs" name="allowed_mccs" placeholder="e.g. 5411, 5814" value="${formValue(flash, 'allowed_mccs', controls?.allowed_mccs?.join(', ') ?? '')}" data-testid="allowed-mccs"></div>
    <div><label for="blocked_mccs">Blocked MCCs</label>
    <input id="blocked_mccs" name="blocked_mccs" placeholder="e.g. 7995" value="${formValue(flash, 'blocked_mccs', controls?.blocked_mccs.join(', ') ?? '')}" data-testid="blocked-mccs"></div>
  </div>
</div>`;
}

function limitsSummary(controls: StoredControls): Html {
  const parts = controls.limits.map(
    (limit) => `${limit.interval.replace('_', ' ')} ${money(BigInt(limit.amount), 'USD')}`,
  );
  if (controls.allowed_mccs) parts.push(`only MCC ${controls.allowed_mccs.join(', ')}`);
  if (controls.blocked_mccs.length > 0) parts.push(`blocks MCC ${controls.blocked_mccs.join(', ')}`);
  return parts.length > 0 ? html`${parts.join(' · ')}` : html`<span class="muted">no limits</span>`;
}

const masked = (card: VirtualCardRow) =>
  `${card.brand === 'visa' ? 'Visa' : 'Mastercard'} •••• ${card.last4}`;

function cardsTable(cards: VirtualCardRow[]): Html {
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

function createForm(c: DashContext, flash: Flash | null): Html {
  return html`<section class="card">
  <h2>Issue a virtual card</h2>
  <form method="post" action="${CARDS}" data-testid="create-card-form">
    ${csrfField(c)}
    <div class="row">
      ${selectOf(flash, { name: 'brand', label: 'Brand', fallback: 'visa', testId: 'card-brand' }, [
        ['visa', 'Visa'],
        ['mastercard', 'Mastercard'],
      ])}
      <div><label for="cardholder_name">Cardholder name</label>
      <input id="cardholder_name" name="cardholder_name" maxlength="100" required value="${formValue(flash, 'cardholder_name')}" data-testid="cardholder-name"></div>
    </div>
    ${controlsEditor(flash, null)}
    ${metadataEditor(flash)}
    <button type="submit" data-testid="create-card">Issue card</button>
  </form>
  <p class="muted small">The number and CVC are shown once, on the card's page right after issuing (as the API's create response). Spend draws on the available USD balance.</p>
</section>`;
}

function secretOnce(secret: Secret, card: VirtualCardRow): Html {
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

function cardDetails(c: DashContext, card: VirtualCardRow): Html {
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

function editLimitsForm(c: DashContext, flash: Flash | null, card: VirtualCardRow): Html {
  if (card.state === 'canceled') return html``;
  return html`<section class="card">
  <h2>Edit limits</h2>
  <form method="post" action="${cardPath(card.id)}/controls" data-testid="edit-limits-form">
    ${csrfField(c)}
    ${controlsEditor(flash, card.spendingControls)}
    <button type="submit" data-testid="save-limits">Save controls</button>
  </form>
  <p class="muted small">Replaces the card's spending controls (POST /v1/virtual_cards/{id} with spending_controls).</p>
</section>`;
}

/** A few merchants to try, one click each: [mcc, merchant name]. */
const TRY_MERCHANTS: [string, string][] = [
  ['5814', 'Blue Bottle Coffee'],
  ['5411', 'Corner Grocery'],
  ['4511', 'Example Air'],
  ['5541', 'Highway Fuel'],
  ['7995', 'Lucky Casino'],
];

function mccPicker(): Html {
  return html`<datalist id="mcc-codes">${mccReference.mcc.map(
    (row) => html`<option value="${row.code}">${row.irs_description ?? row.description}</option>`,
  )}</datalist>
<p class="actions small" data-testid="mcc-picker">${TRY_MERCHANTS.map(
    ([mcc, name]) =>
      html`<button type="button" class="secondary small" data-fill="${JSON.stringify({ mcc, merchant_name: name })}" data-fill-form="simulate-form">${mcc} ${name}</button>`,
  )}</p>`;
}

function simulateForm(c: DashContext, flash: Flash | null, card: VirtualCardRow): Html {
  return html`<section class="card">
  <h2>Simulate authorization</h2>
  <form method="post" action="${cardPath(card.id)}/authorizations" id="simulate-form" data-testid="simulate-form">
    ${csrfField(c)}
    <div class="row">
      <div><label for="amount">Amount (USD)</label>
      <input id="amount" name="amount" inputmode="decimal" required value="${formValue(flash, 'amount', '6.50')}" data-testid="auth-amount"></div>
      <div><label for="merchant_name">Merchant name</label>
      <input id="merchant_name" name="merchant_name" maxlength="100" required value="${formValue(flash, 'merchant_name', 'Blue Bottle Coffee')}" data-testid="auth-merchant"></div>
      <div><label for="mcc">MCC</label>
      <input id="mcc" name="mcc" list="mcc-codes" inputmode="numeric" maxlength="4" required value="${formValue(flash, 'mcc', '5814')}" data-testid="auth-mcc"></div>
      <div><label for="country">Country</label>
      <input id="country" name="country" maxlength="2" placeholder="US" value="${formValue(flash, 'country', 'US')}" data-testid="auth-country"></div>
    </div>
    ${mccPicker()}
    <button type="submit" data-testid="simulate-authorization">Authorize</button>
  </form>
  <p class="muted small">A merchant somewhere asks to charge the card (POST /v1/simulate/virtual_cards/{id}/authorizations): approved (the amount is held on available USD) or declined with a reason.</p>
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
async function authorizations(svc: ServiceContext, cardId: string, after: string | undefined): Promise<Html> {
  const page = await listAuthorizations(svc, cardId, { limit: 50, starting_after: after });
  return html`${authorizationsTable(page.data)}${olderLink(cardPath(cardId), page.nextCursor)}`;
}

function authorizationOutcome(row: IssuingAuthorizationRow): { notice?: string; error?: string } {
  const what = `${money(row.amount, row.currency)} at ${row.merchantName} (${row.id})`;
  if (row.state === 'declined')
    return { error: `Declined: ${what} — ${declineText(row).replaceAll(' · ', ', ')}.` };
  return { notice: `Approved: ${what}; the amount is held on available USD.` };
}

// ---------------------------------------------------------------------------------------------
// Routes

export function registerCardPages(app: Hono<DashEnv>): void {
  app.get('/cards', async (c) => {
    const svc = await dashboardContext(c);
    const flash = takeFlash(c);
    const page = await listVirtualCards(svc, { limit: 25, starting_after: cursorOf(c) });
    return shell(
      c,
      { title: 'Virtual cards', active: 'cards', flash },
      html`${createForm(c, flash)}
<section class="card">
  <h2>Cards</h2>
  ${cardsTable(page.data)}
  ${olderLink(CARDS, page.nextCursor)}
</section>`,
    );
  });

  app.post('/cards', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, CARDS, async () => {
      const input = parseInput(createVirtualCardSchema, createBody(form), virtualCardFieldCodes);
      const card = await createVirtualCard(svc, input);
      return {
        to: cardPath(card.id),
        notice: `Issued ${masked(card)} (${card.id}).`,
        once: { card_id: card.id, number: card.number, cvc: card.cvc },
      };
    });
  });

  app.get('/cards/:id', async (c) => {
    const svc = await dashboardContext(c);
    const id = c.req.param('id');
    const card = await getVirtualCard(svc, id); // unknown: the 404 page (app.onError)
    const flash = takeFlash(c);
    const secret = secretOf(flash, card.id);
    const after = cursorOf(c);
    return shell(
      c,
      { title: `Virtual card ${masked(card)}`, active: 'cards', flash },
      html`${secret ? secretOnce(secret, card) : ''}
${cardDetails(c, card)}
<div class="grid">
${simulateForm(c, flash, card)}
${editLimitsForm(c, flash, card)}
</div>
<section class="card">
  <h2>Authorizations <span class="muted small">newest first${after ? '' : ', live'}</span></h2>
  <div ${after ? '' : html`data-live-refresh="${cardPath(card.id)}/fragments/authorizations"`} data-testid="card-authorizations">${await authorizations(svc, card.id, after)}</div>
</section>
<p><a href="${CARDS}">← All virtual cards</a></p>`,
    );
  });

  // The first page of authorizations again, for dashboard.js when a transaction changes.
  app.get('/cards/:id/fragments/authorizations', async (c) =>
    c.html(await authorizations(await dashboardContext(c), c.req.param('id'), undefined)),
  );

  app.post('/cards/:id/state', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = cardPath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const card = await updateVirtualCard(svc, c.req.param('id'), updateBody({ state: form.state }));
      return { to: back, notice: `The card is ${card.state}.` };
    });
  });

  app.post('/cards/:id/controls', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = cardPath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      await updateVirtualCard(
        svc,
        c.req.param('id'),
        updateBody({ spending_controls: controlsFromForm(form) }),
      );
      return { to: back, notice: 'Spending controls saved.' };
    });
  });

  app.post('/cards/:id/authorizations', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = cardPath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const input = parseInput(simulateAuthorizationSchema, authorizationBody(form), authorizationFieldCodes);
      const row = await simulateAuthorization(svc, c.req.param('id'), input);
      return { to: back, keepForm: true, ...authorizationOutcome(row) };
    });
  });
}
