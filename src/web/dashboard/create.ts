import type { Hono } from 'hono';
import { html } from 'hono/html';
import { checkoutUrl } from '../../modules/collections/collections.resource.ts';
import {
  createCollectionFieldCodes,
  createCollectionSchema,
} from '../../modules/collections/collections.schema.ts';
import { createCollection, listCollections } from '../../modules/collections/collections.service.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { registerBankForms } from './create-bank.ts';
import { registerCardPaymentForm } from './create-card.ts';
import {
  amountRow,
  detailPath,
  type Form,
  formCard,
  labelInputs,
  registerForm,
  textField,
} from './create-form.ts';
import { bodyOfForm, metadataEditor } from './form-submit.ts';
import { shell } from './layout.ts';
import type { DashContext, DashEnv } from './session.ts';
import { type Flash, type Html, money, objectLink, stateBadge } from './ui.ts';

/**
 * The create-and-try forms: a collection (then open its checkout page), a card payment with a
 * test-card picker, a transfer or payout with a magic-account picker, and the "Try it" index that
 * links every create form of the dashboard. Each form posts the REST body shape to the same service
 * function as its REST route.
 */
export function registerCreatePages(app: Hono<DashEnv>): void {
  app.get('/try', (c) => shell(c, { title: 'Try it', active: 'try' }, tryIndex()));
  registerForm(
    app,
    { path: '/dashboard/collections/new', title: 'Collect a payment', active: 'collect' },
    collectionBodyHtml,
    createFromForm,
  );
  registerCardPaymentForm(app);
  registerBankForms(app);
}

// ---------------------------------------------------------------------------------------------
// Try it

const TRY_LINKS: readonly (readonly [string, string, string, string])[] = [
  ['/dashboard/collections/new', 'Collect a payment', 'collect', 'Create a hosted checkout, then pay it.'],
  [
    '/dashboard/card_payments/new',
    'Charge a card',
    'card_payment',
    'Authorize (and capture) a card; pick a test card for any outcome.',
  ],
  [
    '/dashboard/transfers/new',
    'Send or pull a bank transfer',
    'transfer',
    'ACH, Same-Day ACH or RTP; magic accounts settle, return or stall.',
  ],
  ['/dashboard/payouts/new', 'Pay out', 'payout', 'Move the available USD balance to your bank account.'],
  ['/dashboard/cards', 'Issue a virtual card', 'cards', 'Set spending limits and simulate authorizations.'],
  ['/dashboard/fx', 'Quote and convert FX', 'fx', 'Lock a USD → EUR, GBP or JPY rate and convert.'],
  [
    '/dashboard/webhooks',
    'Receive webhooks',
    'webhooks',
    'Add an endpoint, send a test event, read the delivery log.',
  ],
];

function tryIndex(): Html {
  return html`<section class="card" data-testid="try-index">
  <p class="muted">Every flow of the sandbox, from the browser. Move the clock above to watch what happens next.</p>
  <ul>${TRY_LINKS.map(
    ([path, label, key, about]) =>
      html`<li><a href="${path}" data-testid="try-${key}">${label}</a> — <span class="muted">${about}</span></li>`,
  )}</ul>
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Collections

async function createFromForm(svc: ServiceContext, form: Form) {
  const row = await createCollection(
    svc,
    bodyOfForm(createCollectionSchema, form, createCollectionFieldCodes),
  );
  const url = checkoutUrl(svc.publicUrl, row);
  return {
    to: detailPath(row.id),
    notice: `Collection ${row.id} created for ${money(row.amount, row.currency)}. Its checkout page: ${url}`,
  };
}

function collectionForm(c: DashContext, flash: Flash | null): Html {
  return formCard(
    c,
    {
      id: 'collection-form',
      action: '/dashboard/collections/new',
      title: 'New collection',
      submit: 'Create collection',
    },
    html`${amountRow(flash)}
    ${textField(flash, { name: 'email', label: "Payer's e-mail (optional)", inputmode: 'email', placeholder: 'payer@example.com' })}
    ${textField(flash, { name: 'expires_in', label: 'Expires in (seconds, 1800–86400; optional)', inputmode: 'numeric', placeholder: '86400' })}
    ${labelInputs(flash, 'Reference (optional, unique)')}
    ${textField(flash, { name: 'redirect_url', label: 'Redirect URL after paying (optional)', inputmode: 'url', placeholder: 'https://shop.example/thanks' })}
    ${metadataEditor(flash)}`,
  );
}

async function recentCollections(svc: ServiceContext): Promise<Html> {
  const page = await listCollections(svc, { limit: 5 });
  if (page.data.length === 0)
    return html`<p class="muted" data-testid="no-collections">No collections yet.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="recent-collections" data-narrow-hide="4 5">
<thead><tr><th>Id</th><th>State</th><th class="num">Amount</th><th>Reference</th><th>Checkout</th></tr></thead>
<tbody>${page.data.map(
    (row) => html`<tr>
  <td>${objectLink(row.id)}</td>
  <td>${stateBadge(row.state, row.id)}</td>
  <td class="num">${money(row.amount, row.currency)}</td>
  <td class="ref">${row.reference}</td>
  <td><a href="${checkoutUrl(svc.publicUrl, row)}" target="_blank" rel="noopener" data-testid="open-checkout">Open checkout ↗</a></td>
</tr>`,
  )}</tbody></table></div>`;
}

async function collectionBodyHtml(c: DashContext, flash: Flash | null, svc: ServiceContext): Promise<Html> {
  return html`${collectionForm(c, flash)}
<section class="card">
  <h2>Last 5 collections</h2>
  <p class="muted">Open a checkout page in a new tab and pay it as the payer would; this page's states follow live.</p>
  ${await recentCollections(svc)}
</section>`;
}
