import { Hono } from 'hono';
import { html } from 'hono/html';
import { pageSecurityHeaders } from '../http/security.ts';
import type { CurrencyCode } from '../kernel/currency.ts';
import { SandbankError } from '../kernel/errors.ts';
import { formatDecimal } from '../kernel/money.ts';
import { parseInput } from '../kernel/validation.ts';
import { completeChallengeSchema } from '../kernel/wire-schemas.ts';
import { getCardPayment } from '../modules/card-payments/card-payments.read.ts';
import { challengePagePath } from '../modules/card-payments/card-payments.resource.ts';
import type { CardPaymentDetail } from '../modules/card-payments/card-payments.rows.ts';
import {
  completeCardPayment3ds,
  findChallengeMerchant,
} from '../modules/card-payments/card-payments.three-ds.ts';
import { openByLink, type PayerEnv } from './context.ts';
import { page } from './layout.ts';

const amountOf = (p: CardPaymentDetail) =>
  `${formatDecimal(p.amount, p.currency as CurrencyCode)} ${p.currency}`;

/**
 * The 3-D Secure page of a direct card payment (`next_action.url` of POST /v1/card_payments): the
 * simulated issuer asks the cardholder to complete or fail the challenge. No JavaScript needed.
 * Every request must carry the link's secret; without it, or with a wrong one, the answer is the
 * unknown-id 404.
 */
export function buildChallengePages() {
  const app = new Hono<PayerEnv>();

  const notFound = () =>
    page(
      'Not found',
      html`<section class="card"><h1>Challenge not found</h1><p class="muted">This link is not a Sandbank 3-D Secure challenge.</p></section>`,
    );

  const outcomeView = (p: CardPaymentDetail, merchant: string) =>
    page(
      '3-D Secure',
      html`<section class="card" data-testid="challenge-result" data-state="${p.state}">
  <h2>${merchant}</h2>
  <p>Payment of <strong>${amountOf(p)}</strong> with ${p.brand} •••• ${p.last4}: <strong data-testid="payment-state">${p.state}</strong>${
    p.declineCode ? html` (${p.declineCode})` : ''
  }.</p>
  <p class="muted">You can close this page.</p>
</section>`,
    );

  app.use('*', pageSecurityHeaders());
  app.use('/:id/*', openByLink(findChallengeMerchant, notFound));

  app.get('/:id', async (c) => {
    const ctx = c.get('payer');
    const payment = await getCardPayment(ctx, c.req.param('id'));
    if (payment.state !== 'requires_action') return c.html(outcomeView(payment, ctx.merchant.name));
    return c.html(
      page(
        '3-D Secure',
        html`<section class="card" data-testid="challenge">
  <h2>3-D Secure authentication</h2>
  <p>${ctx.merchant.name} asks you to confirm a payment of <strong>${amountOf(payment)}</strong> with card •••• ${payment.last4}.</p>
  <p class="muted">This is a simulated challenge: choose the outcome.</p>
  <form method="post" action="${challengePagePath(payment)}">
    <button type="submit" name="outcome" value="succeed" data-testid="3ds-complete">Complete authentication</button>
    <button type="submit" name="outcome" value="fail" class="danger" data-testid="3ds-fail">Fail authentication</button>
  </form>
</section>`,
      ),
    );
  });

  app.post('/:id', async (c) => {
    const id = c.req.param('id');
    const form = await c.req.parseBody();
    try {
      const input = parseInput(completeChallengeSchema, {
        outcome: form.outcome === 'succeed' ? 'succeed' : 'fail',
      });
      await completeCardPayment3ds(c.get('payer'), id, input);
    } catch (error) {
      // A decline is an outcome to show; a second answer to an answered challenge shows the outcome too.
      if (!(error instanceof SandbankError && ['card_declined', 'invalid_state'].includes(error.code)))
        throw error;
    }
    return c.redirect(challengePagePath({ id, challengeSecret: c.get('linkSecret') }), 303);
  });

  return app;
}
