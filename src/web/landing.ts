import type { Context } from 'hono';
import { html } from 'hono/html';
import { TEST_CARDS } from '../modules/cards/magic-cards.ts';
import {
  INSTANT_REJECT_ACCOUNTS,
  MAGIC_ACCOUNTS,
  RETURN_CODE_ACCOUNT,
  UNREACHABLE_ROUTING_NUMBER,
  UNREACHABLE_ROUTING_OUTCOME,
} from '../modules/transfers/transfers.rails.ts';
import { page } from './layout.ts';

/** Where a new user goes from `/`: [path, label, what it is, test id]. */
const LINKS: [string, string, string, string][] = [
  [
    '/dashboard',
    'Dashboard',
    'every area of the sandbox in a browser (sign in with your secret key)',
    'dashboard',
  ],
  ['/docs', 'API reference', 'the REST API under /v1, rendered by Swagger UI', 'docs'],
  [
    '/graphql',
    'GraphiQL',
    'the GraphQL API (signed in to the dashboard, it runs as your merchant)',
    'graphiql',
  ],
  [
    '/v1/openapi.json',
    'OpenAPI document',
    'the contract of /v1: every operation, error and webhook',
    'openapi',
  ],
  ['/graphql/schema.graphql', 'GraphQL schema', 'the schema in SDL', 'schema'],
];

const linkList = html`<ul class="links">${LINKS.map(
  ([path, label, about, id]) =>
    html`<li><a href="${path}" data-testid="link-${id}">${label}</a> <span class="muted">— ${about}</span></li>`,
)}</ul>`;

/** The magic card numbers, from the network's own list (magic-cards.ts). */
const cardTable = html`<table data-testid="test-cards">
<thead><tr><th>Card number</th><th>Brand</th><th>CVC</th><th>Outcome</th></tr></thead>
<tbody>${TEST_CARDS.map(
  (card) =>
    html`<tr><td><code>${card.number}</code></td><td>${card.brand}</td><td><code>${card.cvc}</code></td><td>${card.label}</td></tr>`,
)}</tbody>
</table>`;

/** The magic bank accounts, from the rails' own list (transfers.rails.ts). */
const accountTable = html`<table data-testid="test-accounts">
<thead><tr><th>Account number / routing</th><th>Outcome</th></tr></thead>
<tbody>${MAGIC_ACCOUNTS.map(
  (account) => html`<tr><td><code>${account.accountNumber}</code></td><td>${account.outcome}</td></tr>`,
)}
<tr><td><code>${RETURN_CODE_ACCOUNT.example}</code> (100XX)</td><td>${RETURN_CODE_ACCOUNT.outcome}</td></tr>
<tr><td>routing <code>${UNREACHABLE_ROUTING_NUMBER}</code></td><td>${UNREACHABLE_ROUTING_OUTCOME}</td></tr>
${Object.entries(INSTANT_REJECT_ACCOUNTS).map(
  ([accountNumber, reason]) =>
    html`<tr><td><code>${accountNumber}</code></td><td>RTP and FedNow rejected ${reason}; ACH succeeds</td></tr>`,
)}
</tbody>
</table>`;

/**
 * `/`: what a new user opens first. Links to every surface (the dashboard, the API reference, which
 * keeps its own URL /docs, GraphiQL, the OpenAPI document) and the magic test values, rendered from
 * the lists the simulated network and rails decide by, so the page cannot drift from them.
 */
export function landingPage(c: Context) {
  return c.html(
    page(
      'Welcome',
      html`<section class="card">
  <h1>Sandbank</h1>
  <p>A self-hosted payment simulation sandbox: collections with a hosted checkout, card payments,
  bank transfers and payouts, virtual cards, FX, webhooks, and a simulated clock.</p>
  ${linkList}
</section>
<section class="card">
  <h2>Test cards</h2>
  <p class="muted">Any expiry after the sandbox clock (the merchant's simulated time, not today's date: use
  e.g. <code>12/2099</code>) and a CVC of the right length. Any other Luhn-valid Visa, Mastercard or
  American Express number succeeds.</p>
  ${cardTable}
</section>
<section class="card">
  <h2>Test bank accounts</h2>
  <p class="muted">Any routing number that passes the ABA checksum (e.g. <code>110000000</code>) and a 4–17
  digit account number; these decide what the rails do, every other account succeeds.</p>
  ${accountTable}
</section>`,
      { wide: true },
    ),
  );
}
