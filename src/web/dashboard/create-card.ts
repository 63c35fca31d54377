import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { createCardPayment } from '../../modules/card-payments/card-payments.authorize.ts';
import {
  createCardPaymentFieldCodes,
  createCardPaymentSchema,
} from '../../modules/card-payments/card-payments.schema.ts';
import { TEST_CARDS, testCardExpiry, testCardFill } from '../../modules/cards/magic-cards.ts';
import type { ServiceContext } from '../../modules/context.ts';
import {
  amountRow,
  detailPath,
  type Form,
  fillLink,
  formCard,
  labelInputs,
  registerForm,
  textField,
} from './create-form.ts';
import { bodyOfForm, type Outcome, selectOf } from './form-submit.ts';
import type { DashContext, DashEnv } from './session.ts';
import { type Flash, type Html, money } from './ui.ts';

/**
 * A card payment from the dashboard (POST /v1/card_payments's service) with a test-card picker:
 * the magic cards of the network as links that fill the form (dashboard.js, data-fill), and a
 * select that works without script. A decline is not an error page: the declined payment exists,
 * so the browser lands on it. The card number and CVC never go into a flash, a log or a URL. The
 * inputs carry the body's names (`card[number]`): the form is read as REST reads a form body (bodyOfForm).
 */
const FORM_PATH = '/dashboard/card_payments/new';
const FORM_ID = 'card-payment-form';
/** Fields that hold card data: never kept to refill the form. */
const CARD_SECRETS = ['card[number]', 'card[cvc]', 'test_card'] as const;

/**
 * The form as the browser would send it with the picker's fill link and a checkbox that always
 * speaks: a test card chosen in the select fills the card's blank fields (without script), and the
 * capture box unchecked (which sends nothing) is `capture=false`.
 */
function asFilled(form: Form, now: Date): Form {
  const { test_card: chosen, ...rest } = form;
  const picked = rest['card[number]'] ? undefined : TEST_CARDS.find((card) => card.number === chosen);
  const filled: Form = { ...rest, capture: rest.capture ?? 'false' };
  if (picked)
    for (const [name, value] of Object.entries(testCardFill(picked, now)))
      filled[`card[${name}]`] = rest[`card[${name}]`] || value;
  return filled;
}

async function createFromForm(svc: ServiceContext, form: Form): Promise<Outcome> {
  try {
    const body = bodyOfForm(
      createCardPaymentSchema,
      asFilled(form, svc.clock.now()),
      createCardPaymentFieldCodes,
    );
    const payment = await createCardPayment(svc, body);
    return {
      to: detailPath(payment.id),
      notice: `Card payment ${payment.id} (${payment.brand} •••• ${payment.last4}) is ${payment.state} for ${money(payment.amount, payment.currency)}.`,
    };
  } catch (error) {
    if (!(error instanceof SandbankError) || error.code !== 'card_declined' || !error.objectId) throw error;
    return {
      to: detailPath(error.objectId),
      error: `Card payment ${error.objectId} was declined: ${error.declineCode ?? 'generic_decline'} — ${error.message}`,
    };
  }
}

function withoutCardSecrets(form: Form): Form {
  const kept = { ...form };
  for (const name of CARD_SECRETS) delete kept[name];
  return kept;
}

/** The capture checkbox: on for a fresh form, as sent after an error. */
function captureBox(flash: Flash | null): Html {
  const checked = flash?.form ? flash.form.capture === 'true' : true;
  return html`<label><input type="checkbox" name="capture" value="true" ${checked ? html`checked` : ''} data-testid="field-capture"> Capture at once (off: authorize only, capture later)</label>`;
}

function testCardSelect(): Html {
  return selectOf(
    null,
    {
      name: 'test_card',
      label: 'Or pick a test card (used when the number is blank)',
      fallback: '',
      testId: 'field-test_card',
    },
    [
      ['', '—'],
      ...TEST_CARDS.map((card): [string, string] => [card.number, `${card.number} — ${card.label}`]),
    ],
  );
}

function paymentForm(c: DashContext, flash: Flash | null): Html {
  return formCard(
    c,
    { id: FORM_ID, action: FORM_PATH, title: 'New card payment', submit: 'Charge the card' },
    html`${amountRow(flash)}
    ${textField(flash, { name: 'card[number]', id: 'number', label: 'Card number', inputmode: 'numeric', placeholder: '4242 4242 4242 4242', autocomplete: 'cc-number' })}
    <div class="row">
      ${textField(flash, { name: 'card[exp_month]', id: 'exp_month', label: 'Exp. month', inputmode: 'numeric', placeholder: 'MM' })}
      ${textField(flash, { name: 'card[exp_year]', id: 'exp_year', label: 'Exp. year', inputmode: 'numeric', placeholder: 'YYYY' })}
      ${textField(flash, { name: 'card[cvc]', id: 'cvc', label: 'CVC', inputmode: 'numeric', placeholder: '123', autocomplete: 'cc-csc' })}
    </div>
    ${textField(flash, { name: 'card[name]', id: 'name', label: 'Name on card (optional)', autocomplete: 'cc-name' })}
    ${testCardSelect()}
    ${captureBox(flash)}
    ${labelInputs(flash)}`,
  );
}

/**
 * The test cards as links that fill the form, with the expiry the checkout page fills too
 * (testCardExpiry: from the merchant's clock, so a picked card is valid whatever the clock says).
 */
function testCardPicker(now: Date): Html {
  const expiry = testCardExpiry(now);
  return html`<section class="card" data-testid="test-cards">
  <h2>Test cards</h2>
  <p class="muted" data-testid="test-cards-expiry">Click to fill the form (expiry ${expiry.month}/${expiry.year}, by the sandbox clock). Any other Luhn-valid Visa, Mastercard or Amex number succeeds.</p>
  <ul>${TEST_CARDS.map(
    (card) =>
      html`<li>${fillLink(FORM_ID, testCardFill(card, now), card.number, 'test-card')} — ${card.label}</li>`,
  )}</ul>
</section>`;
}

export function registerCardPaymentForm(app: Hono<DashEnv>): void {
  registerForm(
    app,
    { path: FORM_PATH, title: 'Charge a card', active: 'card_payment' },
    (c, flash, svc) => html`${paymentForm(c, flash)}${testCardPicker(svc.clock.now())}`,
    createFromForm,
    withoutCardSecrets,
  );
}
