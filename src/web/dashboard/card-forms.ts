import { html } from 'hono/html';
import mccReference from '../../../reference/mcc.json' with { type: 'json' };
import { formatDecimal } from '../../kernel/money.ts';
import { LIMIT_INTERVALS, type LimitInterval } from '../../modules/issuing/issuing.controls.ts';
import type { VirtualCardRow } from '../../modules/issuing/issuing.resource.ts';
import { metadataEditor, selectOf } from './form-submit.ts';
import type { DashContext } from './session.ts';
import { csrfField, type Flash, formValue, type Html } from './ui.ts';

/**
 * The virtual-card pages' forms: issue a card (with its limits editor), edit its limits, and
 * simulate an authorization. Their inputs carry the body's names, read by bodyOfForm: a limit's
 * amount is `spending_controls[limits][<interval>][amount]` (an entry named by its interval; a
 * blank amount is no limit), the MCC lists are one text each (`spending_controls[allowed_mccs]`).
 */

/** The names of the limits editor's inputs. */
const limitName = (interval: LimitInterval) => `spending_controls[limits][${interval}][amount]`;
const ALLOWED = 'spending_controls[allowed_mccs]';
const BLOCKED = 'spending_controls[blocked_mccs]';

/** A card's spending controls as its row holds them. */
export type StoredControls = VirtualCardRow['spendingControls'];

export const CARDS = '/dashboard/cards';
export const cardPath = (id: string) => `${CARDS}/${encodeURIComponent(id)}`;

const INTERVAL_LABELS: Record<LimitInterval, string> = {
  per_authorization: 'Per authorization',
  daily: 'Daily (UTC day)',
  weekly: 'Weekly (from Monday)',
  monthly: 'Monthly',
  yearly: 'Yearly',
  all_time: 'All time',
};

// ---------------------------------------------------------------------------------------------
// Rendering the forms

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
    <input id="limit_${interval}" name="${limitName(interval)}" inputmode="decimal" placeholder="no limit" value="${formValue(flash, limitName(interval), current[interval] ?? '')}" data-testid="limit-${interval}">
  </div>`,
  )}</div>
  <div class="row">
    <div><label for="allowed_mccs">Allowed MCCs <span class="muted small">only these; blank = all</span></label>
    <input id="allowed_mccs" name="${ALLOWED}" placeholder="e.g. 5411, 5814" value="${formValue(flash, ALLOWED, controls?.allowed_mccs?.join(', ') ?? '')}" data-testid="allowed-mccs"></div>
    <div><label for="blocked_mccs">Blocked MCCs</label>
    <input id="blocked_mccs" name="${BLOCKED}" placeholder="e.g. 7995" value="${formValue(flash, BLOCKED, controls?.blocked_mccs.join(', ') ?? '')}" data-testid="blocked-mccs"></div>
  </div>
</div>`;
}

export function createForm(c: DashContext, flash: Flash | null): Html {
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

export function editLimitsForm(c: DashContext, flash: Flash | null, card: VirtualCardRow): Html {
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

export function simulateForm(c: DashContext, flash: Flash | null, card: VirtualCardRow): Html {
  return html`<section class="card">
  <h2>Simulate authorization</h2>
  <form method="post" action="${cardPath(card.id)}/authorizations" id="simulate-form" data-testid="simulate-form">
    ${csrfField(c)}
    <div class="row">
      <div><label for="amount">Amount (USD)</label>
      <input id="amount" name="amount" inputmode="decimal" required value="${formValue(flash, 'amount', '6.50')}" data-testid="auth-amount"></div>
      <div><label for="merchant_name">Merchant name</label>
      <input id="merchant_name" name="merchant[name]" maxlength="100" required value="${formValue(flash, 'merchant[name]', 'Blue Bottle Coffee')}" data-testid="auth-merchant"></div>
      <div><label for="mcc">MCC</label>
      <input id="mcc" name="merchant[mcc]" list="mcc-codes" inputmode="numeric" maxlength="4" required value="${formValue(flash, 'merchant[mcc]', '5814')}" data-testid="auth-mcc"></div>
      <div><label for="country">Country</label>
      <input id="country" name="merchant[country]" maxlength="2" placeholder="US" value="${formValue(flash, 'merchant[country]', 'US')}" data-testid="auth-country"></div>
    </div>
    ${mccPicker()}
    <button type="submit" data-testid="simulate-authorization">Authorize</button>
  </form>
  <p class="muted small">A merchant somewhere asks to charge the card (POST /v1/simulate/virtual_cards/{id}/authorizations): approved (the amount is held on available USD) or declined with a reason.</p>
</section>`;
}
