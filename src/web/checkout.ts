import { Hono } from 'hono';
import { html, raw } from 'hono/html';
import type { AppDeps } from '../deps.ts';
import type { CurrencyCode } from '../kernel/currency.ts';
import { SandbankError } from '../kernel/errors.ts';
import { formatDecimal } from '../kernel/money.ts';
import type { CardPaymentRow } from '../modules/card-payments/card-payments.resource.ts';
import { TEST_CARDS } from '../modules/cards/network.ts';
import { completeChallenge, payCollection } from '../modules/collections/collections.pay.ts';
import type { CollectionRow } from '../modules/collections/collections.resource.ts';
import {
  type CollectionDetail,
  findCheckoutMerchant,
  getCollection,
} from '../modules/collections/collections.service.ts';
import type { ServiceContext } from '../modules/context.ts';
import { publicPageContext } from './context.ts';
import { page } from './layout.ts';

type WebEnv = { Variables: { deps: AppDeps; requestId: string } };
type Form = Record<string, string>;

function money(row: CollectionRow): string {
  const currency = row.currency as CurrencyCode;
  const symbol = currency === 'USD' ? '$' : '';
  return `${symbol}${formatDecimal(row.amount, currency)} ${currency}`;
}

function header(merchantName: string, row: CollectionRow) {
  return html`<section class="card">
  <div class="muted">Pay <strong data-testid="merchant">${merchantName}</strong></div>
  <div class="amount" data-testid="amount">${money(row)}</div>
  <dl><dt>Reference</dt><dd data-testid="reference">${row.reference}</dd>
  ${row.description ? html`<dt>For</dt><dd>${row.description}</dd>` : ''}</dl>
</section>`;
}

function field(form: Form, name: string): string {
  return form[name] ?? '';
}

function cardForm(row: CollectionRow, form: Form, error: string | null) {
  const fillScript = raw(`<script>
document.querySelectorAll('[data-card]').forEach(function (a) {
  a.addEventListener('click', function (e) {
    e.preventDefault();
    var f = document.getElementById('card-form');
    f.number.value = a.dataset.card; f.cvc.value = a.dataset.cvc;
    f.exp_month.value = '12'; f.exp_year.value = String(new Date().getFullYear() + 3);
  });
});
</script>`);
  return html`<section class="card">
  <h2>Pay by card</h2>
  ${error ? html`<div class="error" role="alert" data-testid="card-error">${error}</div>` : ''}
  <form id="card-form" method="post" action="/checkout/${row.id}/card">
    <label for="number">Card number</label>
    <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" value="${field(form, 'number')}" required>
    <div class="row">
      <div><label for="exp_month">Month</label><input id="exp_month" name="exp_month" inputmode="numeric" placeholder="MM" value="${field(form, 'exp_month')}" required></div>
      <div><label for="exp_year">Year</label><input id="exp_year" name="exp_year" inputmode="numeric" placeholder="YYYY" value="${field(form, 'exp_year')}" required></div>
      <div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" value="${field(form, 'cvc')}" required></div>
    </div>
    <label for="name">Name on card</label>
    <input id="name" name="name" autocomplete="cc-name" value="${field(form, 'name')}">
    <button type="submit" data-testid="pay-card">Pay ${money(row)}</button>
  </form>
  <details open><summary class="muted">Test cards (click to fill)</summary>
    <ul class="test-cards">
      ${TEST_CARDS.map(
        (card) =>
          html`<li><a href="?card=${card.number}" data-card="${card.number}" data-cvc="${card.cvc}">${card.number}</a> — ${card.label}</li>`,
      )}
    </ul>
  </details>
  ${fillScript}
</section>`;
}

function bankForm(row: CollectionRow, form: Form, error: string | null) {
  return html`<section class="card">
  <h2>Pay by US bank account (ACH)</h2>
  ${error ? html`<div class="error" role="alert" data-testid="bank-error">${error}</div>` : ''}
  <form method="post" action="/checkout/${row.id}/bank">
    <label for="account_name">Account holder</label><input id="account_name" name="name" value="${field(form, 'name')}">
    <div class="row">
      <div><label for="routing_number">Routing number</label><input id="routing_number" name="routing_number" inputmode="numeric" placeholder="110000000" value="${field(form, 'routing_number')}" required></div>
      <div><label for="account_number">Account number</label><input id="account_number" name="account_number" inputmode="numeric" placeholder="000123456789" value="${field(form, 'account_number')}" required></div>
    </div>
    <label for="account_type">Account type</label>
    <select id="account_type" name="account_type"><option value="checking">Checking</option><option value="savings">Savings</option></select>
    <button type="submit" class="secondary" data-testid="pay-bank">Pay by bank account</button>
  </form>
</section>`;
}

const STATE_TEXT: Record<string, string> = {
  succeeded: 'This payment is complete. Thank you!',
  processing: 'Your bank payment was submitted and is processing. It settles on the ACH timeline.',
  failed: 'This payment failed.',
  canceled: 'This checkout was canceled by the merchant.',
  expired: 'This checkout has expired.',
};

function statusView(detail: CollectionDetail) {
  const paid = detail.state === 'succeeded' || detail.state === 'processing';
  const card = detail.cardPayments.find((p) => p.state === 'captured' || p.state.endsWith('refunded'));
  const bank = detail.debits[0];
  return html`<section class="card" data-testid="status" data-state="${detail.state}">
  <h2>${paid ? 'Receipt' : 'Checkout closed'}</h2>
  <div class="${paid ? 'success' : 'error'}" data-testid="status-text">${STATE_TEXT[detail.state] ?? detail.state}</div>
  ${detail.failureMessage ? html`<p class="muted" data-testid="failure">${detail.failureMessage}</p>` : ''}
  ${
    paid && (card || bank)
      ? html`<dl style="margin-top:12px"><dt>Paid with</dt><dd>${card ? `${card.brand} •••• ${card.last4}` : `bank account •••• ${bank?.accountLast4}`}</dd><dt>Payment</dt><dd>${card?.id ?? bank?.id}</dd></dl>`
      : ''
  }
</section>`;
}

function challengeView(row: CollectionRow, payment: CardPaymentRow) {
  return html`<section class="card" data-testid="challenge">
  <h2>3-D Secure authentication</h2>
  <p>Your bank asks you to confirm this payment of <strong>${money(row)}</strong> with card •••• ${payment.last4}.</p>
  <p class="muted">This is a simulated challenge: choose the outcome.</p>
  <form method="post" action="/checkout/${row.id}/3ds/${payment.id}">
    <button type="submit" name="outcome" value="succeed" data-testid="3ds-complete">Complete authentication</button>
    <button type="submit" name="outcome" value="fail" class="danger" data-testid="3ds-fail">Fail authentication</button>
  </form>
</section>`;
}

function redirectTarget(row: CollectionRow): string {
  if (!row.redirectUrl) return `/checkout/${row.id}`;
  const url = new URL(row.redirectUrl);
  url.searchParams.set('reference', row.reference);
  url.searchParams.set('state', row.state);
  return url.toString();
}

function messageOf(error: unknown): string {
  return error instanceof SandbankError ? error.message : 'Something went wrong; please try again.';
}

/** The hosted checkout: server-rendered forms that work without JavaScript, over the collections service. */
export function buildCheckout() {
  const app = new Hono<WebEnv>();

  const contextFor = (deps: AppDeps, collectionId: string) =>
    publicPageContext(deps, (db) => findCheckoutMerchant(db, collectionId));

  const notFound = () =>
    page(
      'Not found',
      html`<section class="card"><h1>Checkout not found</h1><p class="muted">This link is not a Sandbank checkout.</p></section>`,
    );

  async function render(
    ctx: ServiceContext,
    id: string,
    options: {
      form?: Form;
      cardError?: string | null;
      bankError?: string | null;
      status?: number;
      paymentId?: string;
    },
  ) {
    const detail = await getCollection(ctx, id);
    const shown = options.paymentId ? detail.cardPayments.find((p) => p.id === options.paymentId) : undefined;
    const cardError =
      options.cardError ??
      (shown?.state === 'declined' ? (shown.failureMessage ?? 'The card was declined.') : null);
    const body =
      detail.state === 'pending'
        ? html`${header(ctx.merchant.name, detail)}${cardForm(detail, options.form ?? {}, cardError)}${bankForm(detail, options.form ?? {}, options.bankError ?? null)}`
        : html`${header(ctx.merchant.name, detail)}${statusView(detail)}`;
    return { html: page(`Pay ${ctx.merchant.name}`, body), status: options.status ?? 200 };
  }

  app.get('/:id', async (c) => {
    const ctx = await contextFor(c.get('deps'), c.req.param('id'));
    if (!ctx) return c.html(notFound(), 404);
    const prefill = c.req.query('card');
    const card = TEST_CARDS.find((t) => t.number === prefill);
    const form: Form = card
      ? {
          number: card.number,
          cvc: card.cvc,
          exp_month: '12',
          exp_year: String(ctx.clock.now().getUTCFullYear() + 3),
        }
      : {};
    const view = await render(ctx, c.req.param('id'), {
      form,
      ...(c.req.query('payment') ? { paymentId: c.req.query('payment') } : {}),
    });
    return c.html(view.html, 200);
  });

  app.post('/:id/card', async (c) => {
    const id = c.req.param('id');
    const ctx = await contextFor(c.get('deps'), id);
    if (!ctx) return c.html(notFound(), 404);
    const form = (await c.req.parseBody()) as Form;
    const card = {
      number: field(form, 'number'),
      exp_month: field(form, 'exp_month'),
      exp_year: field(form, 'exp_year'),
      cvc: field(form, 'cvc'),
      ...(form.name ? { name: form.name } : {}),
    };
    try {
      const result = await payCollection(ctx, id, { method: 'card', card });
      if (result.nextAction) return c.redirect(new URL(result.nextAction.url).pathname, 303);
      return c.redirect(redirectTarget(result.collection), 303);
    } catch (error) {
      if (error instanceof SandbankError && error.code === 'card_declined' && error.objectId) {
        return c.redirect(`/checkout/${id}?payment=${error.objectId}`, 303);
      }
      // Re-show what the payer typed, except the CVC.
      const view = await render(ctx, id, {
        form: { ...form, cvc: '' },
        cardError: messageOf(error),
        status: 400,
      });
      return c.html(view.html, 400);
    }
  });

  app.post('/:id/bank', async (c) => {
    const id = c.req.param('id');
    const ctx = await contextFor(c.get('deps'), id);
    if (!ctx) return c.html(notFound(), 404);
    const form = (await c.req.parseBody()) as Form;
    const bankAccount = {
      ...(form.name ? { name: form.name } : {}),
      routing_number: field(form, 'routing_number').trim(),
      account_number: field(form, 'account_number').trim(),
      account_type: form.account_type === 'savings' ? 'savings' : 'checking',
    };
    try {
      const result = await payCollection(ctx, id, { method: 'bank_account', bank_account: bankAccount });
      return c.redirect(redirectTarget(result.collection), 303);
    } catch (error) {
      const view = await render(ctx, id, { form, bankError: messageOf(error), status: 400 });
      return c.html(view.html, 400);
    }
  });

  app.get('/:id/3ds/:payment', async (c) => {
    const id = c.req.param('id');
    const ctx = await contextFor(c.get('deps'), id);
    if (!ctx) return c.html(notFound(), 404);
    const detail = await getCollection(ctx, id);
    const payment = detail.cardPayments.find((p) => p.id === c.req.param('payment'));
    if (!payment) return c.html(notFound(), 404);
    if (payment.state !== 'requires_action' || detail.state !== 'pending')
      return c.redirect(`/checkout/${id}`, 303);
    return c.html(
      page('3-D Secure', html`${header(ctx.merchant.name, detail)}${challengeView(detail, payment)}`),
    );
  });

  app.post('/:id/3ds/:payment', async (c) => {
    const id = c.req.param('id');
    const ctx = await contextFor(c.get('deps'), id);
    if (!ctx) return c.html(notFound(), 404);
    const form = (await c.req.parseBody()) as Form;
    const paymentId = c.req.param('payment');
    try {
      const result = await completeChallenge(
        ctx,
        paymentId,
        { outcome: form.outcome === 'succeed' ? 'succeed' : 'fail' },
        id,
      );
      return c.redirect(redirectTarget(result.collection), 303);
    } catch (error) {
      if (error instanceof SandbankError && error.code === 'card_declined')
        return c.redirect(`/checkout/${id}?payment=${paymentId}`, 303);
      const view = await render(ctx, id, { cardError: messageOf(error), status: 409 });
      return c.html(view.html, 409);
    }
  });

  return app;
}
