import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { pageCsp, pageSecurityHeaders } from '../http/security.ts';
import { SandbankError } from '../kernel/errors.ts';
import { parseInput } from '../kernel/validation.ts';
import { completeChallengeSchema } from '../kernel/wire-schemas.ts';
import { TEST_CARDS, testCardFill } from '../modules/cards/magic-cards.ts';
import { completeChallenge, payCollection } from '../modules/collections/collections.pay.ts';
import { type CollectionRow, checkoutPath } from '../modules/collections/collections.resource.ts';
import { payCollectionFieldCodes, payCollectionSchema } from '../modules/collections/collections.schema.ts';
import { findCheckoutMerchant, getCollection } from '../modules/collections/collections.service.ts';
import { checkoutCancelUrl } from '../modules/stripe/stripe.checkout-read.ts';
import { bankForm, cardForm, challengeView, type Form, field, header, statusView } from './checkout-views.ts';
import { openByLink, type PayerEnv } from './context.ts';
import { page } from './layout.ts';
import { MAGIC_ACCOUNT_CHOICES } from './magic-accounts.ts';

type WebContext = Context<PayerEnv>;

/** The link a request came through: the collection and the secret it carried (checked). */
const linkOf = (c: WebContext): Pick<CollectionRow, 'id' | 'checkoutSecret'> => ({
  id: c.get('linkId'),
  checkoutSecret: c.get('linkSecret'),
});

function redirectTarget(row: CollectionRow): string {
  if (!row.redirectUrl) return checkoutPath(row);
  const url = new URL(row.redirectUrl);
  url.searchParams.set('reference', row.reference);
  url.searchParams.set('state', row.state);
  return url.toString();
}

function messageOf(error: unknown): string {
  return error instanceof SandbankError ? error.message : 'Something went wrong; please try again.';
}

/**
 * The page's CSP: the forms may end at the merchant's `redirect_url` (a POST answered by a redirect
 * there), so its origin joins `form-action`.
 */
function cspFor(row: CollectionRow): string {
  const origin = row.redirectUrl ? new URL(row.redirectUrl).origin : 'null';
  return pageCsp(origin === 'null' ? {} : { formAction: [origin] });
}

/** The last four digits of what was typed as a card number, if it looked like one. */
function last4Of(number: string): string | null {
  const digits = number.replace(/\D/g, '');
  return digits.length >= 12 ? digits.slice(-4) : null;
}

/**
 * The hosted checkout: server-rendered forms that work without JavaScript, over the collections
 * service. Every request (GET or POST, on any path under the collection) must carry the link's
 * secret; without it, or with a wrong one, the answer is the unknown-id 404.
 */
export function buildCheckout() {
  const app = new Hono<PayerEnv>();

  const notFound = () =>
    page(
      'Not found',
      html`<section class="card"><h1>Checkout not found</h1><p class="muted">This link is not a Sandbank checkout.</p></section>`,
    );

  app.use('*', pageSecurityHeaders());
  app.use('/:id/*', openByLink(findCheckoutMerchant, notFound));

  /** A page of the checkout of `row`, with the CSP its forms need. */
  function respond(
    c: WebContext,
    row: CollectionRow,
    body: ReturnType<typeof page>,
    status: 200 | 400 | 409,
  ) {
    return c.html(body, status, { 'Content-Security-Policy': cspFor(row) });
  }

  async function render(
    c: WebContext,
    options: {
      form?: Form;
      cardError?: string | null;
      cardLast4?: string | null;
      bankError?: string | null;
      status?: 200 | 400 | 409;
      paymentId?: string | undefined;
    },
  ) {
    const ctx = c.get('payer');
    const detail = await getCollection(ctx, linkOf(c).id);
    const shown = options.paymentId ? detail.cardPayments.find((p) => p.id === options.paymentId) : undefined;
    const cardError =
      options.cardError ??
      (shown?.state === 'declined' ? (shown.failureMessage ?? 'The card was declined.') : null);
    const form = options.form ?? {};
    // A Checkout Session's cancel_url: the way back to the merchant's site before paying.
    const cancelUrl = detail.state === 'pending' ? await checkoutCancelUrl(ctx, detail.id) : null;
    const back = cancelUrl
      ? html`<p class="muted"><a href="${cancelUrl}" data-testid="cancel-link">← Back to ${ctx.merchant.name}</a></p>`
      : '';
    const body =
      detail.state === 'pending'
        ? html`${back}${header(ctx.merchant.name, detail)}${cardForm(detail, form, cardError, options.cardLast4 ?? null, ctx.clock.now())}${bankForm(detail, form, options.bankError ?? null)}`
        : html`${header(ctx.merchant.name, detail)}${statusView(detail)}`;
    return respond(c, detail, page(`Pay ${ctx.merchant.name}`, body), options.status ?? 200);
  }

  app.get('/:id', async (c) => {
    const prefill = c.req.query('card');
    const card = TEST_CARDS.find((t) => t.number === prefill);
    const account = MAGIC_ACCOUNT_CHOICES.find((choice) => choice.key === c.req.query('bank'));
    const form: Form = card
      ? testCardFill(card, c.get('payer').clock.now())
      : account
        ? { routing_number: account.routingNumber, account_number: account.accountNumber }
        : {};
    return render(c, { form, paymentId: c.req.query('payment') });
  });

  app.post('/:id/card', async (c) => {
    const link = linkOf(c);
    const form = (await c.req.parseBody()) as Form;
    const card = {
      number: field(form, 'number'),
      exp_month: field(form, 'exp_month'),
      exp_year: field(form, 'exp_year'),
      cvc: field(form, 'cvc'),
      ...(form.name ? { name: form.name } : {}),
    };
    try {
      const input = parseInput(payCollectionSchema, { method: 'card', card }, payCollectionFieldCodes);
      const result = await payCollection(c.get('payer'), link.id, input);
      if (result.nextAction) {
        const next = new URL(result.nextAction.url);
        return c.redirect(`${next.pathname}${next.search}`, 303);
      }
      return c.redirect(redirectTarget(result.collection), 303);
    } catch (error) {
      if (error instanceof SandbankError && error.code === 'card_declined' && error.objectId) {
        return c.redirect(`${checkoutPath(link)}&payment=${encodeURIComponent(error.objectId)}`, 303);
      }
      // Re-show what the payer typed, except the card number (its last four as a hint) and the CVC.
      return render(c, {
        form: { ...form, number: '', cvc: '' },
        cardError: messageOf(error),
        cardLast4: last4Of(card.number),
        status: 400,
      });
    }
  });

  app.post('/:id/bank', async (c) => {
    const form = (await c.req.parseBody()) as Form;
    const bankAccount = {
      ...(form.name ? { name: form.name } : {}),
      routing_number: field(form, 'routing_number').trim(),
      account_number: field(form, 'account_number').trim(),
      account_type: form.account_type === 'savings' ? 'savings' : 'checking',
    };
    try {
      const input = parseInput(
        payCollectionSchema,
        { method: 'bank_account', bank_account: bankAccount },
        payCollectionFieldCodes,
      );
      const result = await payCollection(c.get('payer'), linkOf(c).id, input);
      return c.redirect(redirectTarget(result.collection), 303);
    } catch (error) {
      return render(c, { form, bankError: messageOf(error), status: 400 });
    }
  });

  app.get('/:id/3ds/:payment', async (c) => {
    const ctx = c.get('payer');
    const link = linkOf(c);
    const detail = await getCollection(ctx, link.id);
    const payment = detail.cardPayments.find((p) => p.id === c.req.param('payment'));
    if (!payment) return c.html(notFound(), 404);
    if (payment.state !== 'requires_action' || detail.state !== 'pending')
      return c.redirect(checkoutPath(link), 303);
    return respond(
      c,
      detail,
      page('3-D Secure', html`${header(ctx.merchant.name, detail)}${challengeView(detail, payment)}`),
      200,
    );
  });

  app.post('/:id/3ds/:payment', async (c) => {
    const link = linkOf(c);
    const form = (await c.req.parseBody()) as Form;
    const paymentId = c.req.param('payment');
    try {
      const input = parseInput(completeChallengeSchema, {
        outcome: form.outcome === 'succeed' ? 'succeed' : 'fail',
      });
      const result = await completeChallenge(c.get('payer'), paymentId, input, link.id);
      return c.redirect(redirectTarget(result.collection), 303);
    } catch (error) {
      if (error instanceof SandbankError && error.code === 'card_declined')
        return c.redirect(`${checkoutPath(link)}&payment=${encodeURIComponent(paymentId)}`, 303);
      return render(c, { cardError: messageOf(error), status: 409 });
    }
  });

  return app;
}
