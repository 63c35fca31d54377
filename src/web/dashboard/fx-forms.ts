import { html } from 'hono/html';
import { FX_TARGET_CURRENCIES, type FxTargetCurrency } from '../../modules/fx/fx.rates.ts';
import { selectOf } from './form-submit.ts';
import type { DashContext } from './session.ts';
import { csrfField, type Flash, formValue, type Html } from './ui.ts';

/**
 * The FX pages' forms: a quote (which side is fixed, the lock), a payout out of a EUR/GBP/JPY
 * balance, and a destination's fields with links to fill them. Their inputs carry the bodies'
 * names, read by bodyOfForm: the quote's two amounts (`source_amount`, `target_amount`: the one
 * typed is the side fixed), a destination's fields `destination[iban]`, `destination[bank_code]`…
 * (a fill link's keys stay short: dashboard.js fills an input by its id).
 */

/** The FX pages' paths: the FX page and a quote's page. */
export const FX = '/dashboard/fx';
export const quotePath = (id: string) => `${FX}/quotes/${encodeURIComponent(id)}`;

// ---------------------------------------------------------------------------------------------
// Forms

const CURRENCY_OPTIONS: [string, string][] = FX_TARGET_CURRENCIES.map((code) => [code, code]);

export function quoteForm(c: DashContext, flash: Flash | null): Html {
  return html`<section class="card">
  <h2>Get a quote</h2>
  <form method="post" action="${FX}/quotes" data-testid="quote-form">
    ${csrfField(c)}
    <div class="row">
      ${selectOf(flash, { name: 'target_currency', label: 'Buy', fallback: 'EUR', testId: 'quote-target' }, CURRENCY_OPTIONS)}
      <div><label for="quote_amount">USD to sell</label>
      <input id="quote_amount" name="source_amount" inputmode="decimal" value="${formValue(flash, 'source_amount', '100.00')}" data-testid="quote-amount"></div>
      <div><label for="quote_target_amount">or the amount to buy</label>
      <input id="quote_target_amount" name="target_amount" inputmode="decimal" value="${formValue(flash, 'target_amount')}" data-testid="quote-target-amount"></div>
      ${selectOf(
        flash,
        { name: 'lock_duration', label: 'Lock the rate for', fallback: 'five_minutes', testId: 'quote-lock' },
        [
          ['five_minutes', 'five minutes'],
          ['hour', 'an hour'],
          ['day', 'a day'],
        ],
      )}
    </div>
    <button type="submit" data-testid="create-quote">Get quote</button>
  </form>
  <p class="muted small">Locks this hour's sell rate (POST /v1/fx/quotes) for clock time; convert or settle abroad from the quote's page.</p>
</section>`;
}

/** Destinations to try, one click each: [label, fields]. */
const TRY_DESTINATIONS: [string, Record<string, string>][] = [
  ['EUR: German IBAN', { name: 'Lieferant GmbH', iban: 'DE89 3704 0044 0532 0130 00' }],
  ['GBP: UK IBAN', { name: 'Supplier Ltd', iban: 'GB29 NWBK 6016 1331 9268 19' }],
  [
    'JPY: Japanese account',
    { name: 'Yamada Taro', bank_code: '0001', branch_code: '123', account_number: '1234567' },
  ],
  ['EUR: fails AC04', { name: 'Closed GmbH', iban: 'DE89500105179999999999' }],
  [
    'JPY: fails AC04',
    { name: 'Yamada Taro', bank_code: '0001', branch_code: '123', account_number: '9999999' },
  ],
];

export function destinationPicker(formId: string, currency: FxTargetCurrency | null): Html {
  const fits = ([label]: [string, Record<string, string>]) => currency === null || label.startsWith(currency);
  return html`<p class="actions small" data-testid="destination-picker">${TRY_DESTINATIONS.filter(fits).map(
    ([label, fields]) =>
      html`<button type="button" class="secondary small" data-fill="${JSON.stringify(fields)}" data-fill-form="${formId}">${label}</button>`,
  )}</p>`;
}

/** A destination's field: named `destination[<name>]` (the reference is the body's own field). */
function field(flash: Flash | null, name: string, label: string, extra: { placeholder?: string } = {}): Html {
  const input = name === 'reference' ? name : `destination[${name}]`;
  return html`<div><label for="${name}">${label}</label>
  <input id="${name}" name="${input}" placeholder="${extra.placeholder ?? ''}" value="${formValue(flash, input)}" data-testid="destination-${name}"></div>`;
}

/** The destination's fields: an IBAN for EUR/GBP, bank/branch/account for JPY (both when unknown). */
export function destinationFields(flash: Flash | null, currency: FxTargetCurrency | null): Html {
  const iban = currency !== 'JPY';
  const japanese = currency === null || currency === 'JPY';
  return html`<div class="row">
    ${field(flash, 'name', "Account holder's name")}
    ${field(flash, 'reference', 'Reference (optional)')}
  </div>
  ${iban ? html`<div class="row">${field(flash, 'iban', currency === null ? 'IBAN (EUR, GBP)' : 'IBAN', { placeholder: 'DE89 3704 0044 0532 0130 00' })}</div>` : ''}
  ${
    japanese
      ? html`<div class="row">
    ${field(flash, 'bank_code', currency === null ? 'Bank code (JPY, 4 digits)' : 'Bank code (4 digits)')}
    ${field(flash, 'branch_code', 'Branch code (3 digits)')}
    ${field(flash, 'account_number', 'Account number (7 digits)')}
  </div>`
      : ''
  }`;
}

export function payoutForm(c: DashContext, flash: Flash | null, balances: Html): Html {
  return html`<section class="card">
  <h2>Pay out of a EUR, GBP or JPY balance</h2>
  ${balances}
  <form method="post" action="${FX}/settlements" id="payout-form" data-testid="payout-form">
    ${csrfField(c)}
    <div class="row">
      ${selectOf(flash, { name: 'currency', label: 'Currency', fallback: 'EUR', testId: 'payout-currency' }, CURRENCY_OPTIONS)}
      <div><label for="payout_amount">Amount</label>
      <input id="payout_amount" name="amount" inputmode="decimal" required value="${formValue(flash, 'amount')}" data-testid="payout-amount"></div>
    </div>
    ${destinationFields(flash, null)}
    ${destinationPicker('payout-form', null)}
    <button type="submit" data-testid="create-payout">Pay out</button>
  </form>
  <p class="muted small">A settlement funded by the balance (POST /v1/fx/settlements with currency and amount): held now, paid the next US banking day at 12:00 ET.</p>
</section>`;
}
