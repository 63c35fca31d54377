import { html } from 'hono/html';
import type { CurrencyCode } from '../kernel/currency.ts';
import { formatDecimal } from '../kernel/money.ts';
import type { CardPaymentRow } from '../modules/card-payments/card-payments.resource.ts';
import { brandSpec, type CardBrand } from '../modules/cards/card-numbers.ts';
import { TEST_CARDS, testCardExpiry } from '../modules/cards/magic-cards.ts';
import { type CollectionRow, checkoutPath } from '../modules/collections/collections.resource.ts';
import type { CollectionDetail } from '../modules/collections/collections.service.ts';
import { bankWhen } from './bank-time.ts';
import { MAGIC_ACCOUNT_CHOICES } from './magic-accounts.ts';

/**
 * What the hosted checkout shows: the header (amount, reference, expiry), the card and bank
 * forms with their test cards and accounts, the receipt or closed status, and the 3-D Secure
 * challenge. The routes that render them are in checkout.ts.
 */

export type Form = Record<string, string>;

function money(row: CollectionRow): string {
  const currency = row.currency as CurrencyCode;
  const symbol = currency === 'USD' ? '$' : '';
  return `${symbol}${formatDecimal(row.amount, currency)} ${currency}`;
}

/**
 * The amount and what it is for; while the checkout is open, when it expires (in Eastern Time with
 * UTC beside it, as every time of the payer pages: the ACH times a bank payment follows are set in
 * Eastern Time).
 */
export function header(merchantName: string, row: CollectionRow) {
  return html`<section class="card">
  <div class="muted">Pay <strong data-testid="merchant">${merchantName}</strong></div>
  <div class="amount" data-testid="amount">${money(row)}</div>
  <dl><dt>Reference</dt><dd data-testid="reference">${row.reference}</dd>
  ${row.description ? html`<dt>For</dt><dd>${row.description}</dd>` : ''}
  ${row.state === 'pending' ? html`<dt>Expires</dt><dd data-testid="expires">${bankWhen(row.expiresAt)}</dd>` : ''}</dl>
</section>`;
}

export function field(form: Form, name: string): string {
  return form[name] ?? '';
}

/** The brand marks the card form shows, and how each brand's number is grouped as it is typed. */
const BRAND_MARKS: Record<CardBrand, { label: string; groups: number[] }> = {
  visa: { label: 'Visa', groups: [4, 4, 4, 4, 3] },
  mastercard: { label: 'Mastercard', groups: [4, 4, 4, 4] },
  amex: { label: 'Amex', groups: [4, 6, 5] },
};

/**
 * The brand rules the page's script detects a typed number's brand by: the server's own IIN
 * prefixes and ranges (card_brands.json through brandSpec, the rules detectBrand applies), handed
 * to the script as data so that the two cannot differ.
 */
const BRAND_RULES = JSON.stringify(
  (Object.keys(BRAND_MARKS) as CardBrand[]).map((brand) => {
    const spec = brandSpec(brand);
    return { brand, ...BRAND_MARKS[brand], prefixes: spec.prefixes, ranges: spec.ranges };
  }),
);

/**
 * The card form. The number is never written back into a page: a refused form comes back with
 * the number empty and, as a hint, its last four digits (`last4`). The page's script (assets/
 * checkout.js) groups the number as it is typed, shows its brand, and keeps what the payer typed
 * (never the CVC) in the tab's sessionStorage across the submit, to fill the form again after a
 * decline; it is removed as soon as the next page of the checkout has read it.
 */
export function cardForm(
  row: CollectionRow,
  form: Form,
  error: string | null,
  last4: string | null,
  now: Date,
) {
  const expiry = testCardExpiry(now);
  return html`<section class="card">
  <h2>Pay by card</h2>
  ${error ? html`<div class="error" role="alert" data-testid="card-error">${error}</div>` : ''}
  <form id="card-form" method="post" action="${checkoutPath(row, '/card')}" data-brands="${BRAND_RULES}">
    <label for="number">Card number</label>
    <div class="number-field">
      <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" value="${field(form, 'number')}" required>
      <span class="brand-mark" data-testid="card-brand" data-brand="" aria-live="polite"></span>
    </div>
    ${last4 ? html`<p class="muted hint" data-testid="card-hint">For your safety the number is not shown again: type the card ending ${last4} once more.</p>` : ''}
    <div class="row">
      <div><label for="exp_month">Month</label><input id="exp_month" name="exp_month" inputmode="numeric" placeholder="MM" value="${field(form, 'exp_month')}" required></div>
      <div><label for="exp_year">Year</label><input id="exp_year" name="exp_year" inputmode="numeric" placeholder="YYYY" value="${field(form, 'exp_year')}" required></div>
      <div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" value="${field(form, 'cvc')}" required></div>
    </div>
    <label for="name">Name on card</label>
    <input id="name" name="name" autocomplete="cc-name" value="${field(form, 'name')}">
    <button type="submit" data-testid="pay-card">Pay ${money(row)}</button>
  </form>
  <details open><summary class="muted" data-testid="test-cards-summary">Test cards (click to fill; expiry ${expiry.month}/${expiry.year}, by the sandbox clock)</summary>
    <ul class="test-cards">
      ${TEST_CARDS.map(
        (card) =>
          html`<li><a href="${checkoutPath(row)}&amp;card=${card.number}" data-card="${card.number}" data-cvc="${card.cvc}" data-exp-month="${expiry.month}" data-exp-year="${expiry.year}">${card.number}</a> — ${card.label}</li>`,
      )}
    </ul>
  </details>
</section>`;
}

export function bankForm(row: CollectionRow, form: Form, error: string | null) {
  return html`<section class="card">
  <h2>Pay by US bank account (ACH)</h2>
  ${error ? html`<div class="error" role="alert" data-testid="bank-error">${error}</div>` : ''}
  <form method="post" action="${checkoutPath(row, '/bank')}">
    <label for="account_name">Account holder</label><input id="account_name" name="name" value="${field(form, 'name')}">
    <div class="row">
      <div><label for="routing_number">Routing number</label><input id="routing_number" name="routing_number" inputmode="numeric" placeholder="110000000" value="${field(form, 'routing_number')}" required></div>
      <div><label for="account_number">Account number</label><input id="account_number" name="account_number" inputmode="numeric" placeholder="000123456789" value="${field(form, 'account_number')}" required></div>
    </div>
    <label for="account_type">Account type</label>
    <select id="account_type" name="account_type"><option value="checking">Checking</option><option value="savings">Savings</option></select>
    <button type="submit" class="secondary" data-testid="pay-bank">Pay by bank account</button>
  </form>
  <details open><summary class="muted" data-testid="test-accounts-summary">Test bank accounts (click to fill; any other valid account succeeds)</summary>
    <ul class="test-cards">
      ${MAGIC_ACCOUNT_CHOICES.map(
        (choice) =>
          html`<li><a href="${checkoutPath(row)}&amp;bank=${choice.key}" data-routing="${choice.routingNumber}" data-account="${choice.accountNumber}" data-testid="test-account">${choice.routingNumber} / ${choice.accountNumber}</a> — ${choice.outcome}</li>`,
      )}
    </ul>
  </details>
</section>`;
}

const STATE_TEXT: Record<string, string> = {
  succeeded: 'This payment is complete. Thank you!',
  processing: 'Your bank payment was submitted and is processing. It settles on the ACH timeline.',
  failed: 'This payment failed.',
  canceled: 'This checkout was canceled by the merchant.',
  expired: 'This checkout has expired.',
};

export function statusView(detail: CollectionDetail) {
  const paid = detail.state === 'succeeded' || detail.state === 'processing';
  const card = detail.cardPayments.find((p) => p.state === 'captured' || p.state.endsWith('refunded'));
  const bank = detail.debits[0];
  return html`<section class="card" data-testid="status" data-state="${detail.state}">
  <h2>${paid ? 'Receipt' : 'Checkout closed'}</h2>
  <div class="${paid ? 'success' : 'error'}" data-testid="status-text">${STATE_TEXT[detail.state] ?? detail.state}</div>
  ${detail.failureMessage ? html`<p class="muted" data-testid="failure">${detail.failureMessage}</p>` : ''}
  ${
    paid && (card || bank)
      ? html`<dl class="receipt"><dt>Paid with</dt><dd>${card ? `${card.brand} •••• ${card.last4}` : `bank account •••• ${bank?.accountLast4}`}</dd><dt>Payment</dt><dd>${card?.id ?? bank?.id}</dd>${card ? '' : bankTiming(bank)}</dl>`
      : ''
  }
  ${detail.state === 'expired' ? html`<dl class="receipt"><dt>Expired</dt><dd data-testid="expired-at">${bankWhen(detail.expiresAt)}</dd></dl>` : ''}
</section>`;
}

/**
 * When a bank payment settled or is expected to: its ACH settlement, set in Eastern Time by the
 * rails, shown in ET with UTC beside it.
 */
function bankTiming(debit: CollectionDetail['debits'][number] | undefined) {
  if (!debit) return '';
  if (debit.settledAt)
    return html`<dt>Settled</dt><dd data-testid="settled-at">${bankWhen(debit.settledAt)}</dd>`;
  if (debit.expectedSettlementAt)
    return html`<dt>Expected settlement</dt><dd data-testid="expected-settlement">${bankWhen(debit.expectedSettlementAt)}</dd>`;
  return '';
}

export function challengeView(row: CollectionRow, payment: CardPaymentRow) {
  return html`<section class="card" data-testid="challenge">
  <h2>3-D Secure authentication</h2>
  <p>Your bank asks you to confirm this payment of <strong>${money(row)}</strong> with card •••• ${payment.last4}.</p>
  <p class="muted">This is a simulated challenge: choose the outcome.</p>
  <form method="post" action="${checkoutPath(row, `/3ds/${payment.id}`)}">
    <button type="submit" name="outcome" value="succeed" data-testid="3ds-complete">Complete authentication</button>
    <button type="submit" name="outcome" value="fail" class="danger" data-testid="3ds-fail">Fail authentication</button>
  </form>
</section>`;
}
