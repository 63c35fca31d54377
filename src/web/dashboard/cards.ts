import type { Hono } from 'hono';
import { html } from 'hono/html';
import { simulateAuthorization } from '../../modules/issuing/issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from '../../modules/issuing/issuing.cards.ts';
import { getVirtualCard, listVirtualCards } from '../../modules/issuing/issuing.read.ts';
import {
  authorizationFieldCodes,
  createVirtualCardSchema,
  simulateAuthorizationSchema,
  updateVirtualCardFieldCodes,
  updateVirtualCardSchema,
  virtualCardFieldCodes,
} from '../../modules/issuing/issuing.schema.ts';
import { CARDS, cardPath, createForm, editLimitsForm, simulateForm } from './card-forms.ts';
import {
  authorizationOutcome,
  authorizations,
  cardDetails,
  cardsTable,
  masked,
  secretOf,
  secretOnce,
} from './card-views.ts';
import { bodyOfForm, cursorOf, olderLink, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashEnv, dashboardContext, formOf } from './session.ts';
import { takeFlash } from './ui.ts';

/**
 * Virtual cards in the dashboard: the list and the issue form with its limits editor,
 * and a card's page — its controls, freeze / unfreeze / cancel, "edit limits", "simulate
 * authorization" and its authorizations. Every form calls the service REST calls
 * (createVirtualCard, updateVirtualCard, simulateAuthorization) with the body REST takes. The
 * forms are in card-forms.ts, the card's views in card-views.ts.
 */

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
      const input = bodyOfForm(createVirtualCardSchema, form, virtualCardFieldCodes);
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
      const input = bodyOfForm(updateVirtualCardSchema, form, updateVirtualCardFieldCodes);
      const card = await updateVirtualCard(svc, c.req.param('id'), input);
      return { to: back, notice: `The card is ${card.state}.` };
    });
  });

  app.post('/cards/:id/controls', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = cardPath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const input = bodyOfForm(updateVirtualCardSchema, form, updateVirtualCardFieldCodes);
      // The editor replaces the controls as a whole: every input left blank is no controls.
      await updateVirtualCard(svc, c.req.param('id'), {
        ...input,
        spending_controls: input.spending_controls ?? {},
      });
      return { to: back, notice: 'Spending controls saved.' };
    });
  });

  app.post('/cards/:id/authorizations', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    const back = cardPath(c.req.param('id'));
    return submitForm(c, form, back, async () => {
      const input = bodyOfForm(simulateAuthorizationSchema, form, authorizationFieldCodes);
      const row = await simulateAuthorization(svc, c.req.param('id'), input);
      return { to: back, keepForm: true, ...authorizationOutcome(row) };
    });
  });
}
