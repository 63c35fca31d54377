import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import { applyFixture, shippedFixtures } from '../../modules/fixtures/fixtures.service.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, type Flash, setFlash } from './ui.ts';

/**
 * The keys page's "Apply a fixture" form (POST, with the CSRF token every dashboard form has): one
 * of the shipped fixtures, applied as POST /v1/simulate/fixtures {"name": …} would, then back to the
 * keys page, which lists the steps that ran (or says which step failed).
 */
export function registerFixtureAction(app: Hono<DashEnv>): void {
  app.post('/fixtures', async (c) => {
    const form = await formOf(c);
    try {
      const run = await applyFixture(await dashboardContext(c), { name: String(form.name ?? '') });
      setFlash(c, {
        notice: `Fixture ${run.name} applied: ${run.steps.length} steps ran.`,
        fixtureSteps: run.steps.map(
          (step) =>
            `${step.id ?? `#${step.index}`}: ${step.method} ${step.path} → ${step.status}${
              typeof step.object.id === 'string' ? ` (${step.object.id})` : ''
            }`,
        ),
      });
    } catch (error) {
      if (!(error instanceof SandbankError) || error.status >= 500) throw error;
      setFlash(c, { error: error.message });
    }
    return c.redirect('/dashboard/keys#fixtures', 303);
  });
}

/** The form, and the steps of the fixture just applied (from the flash). */
export function fixturesCard(c: DashContext, flash: Flash | null) {
  return html`<section class="card" id="fixtures">
  <h2>Apply a fixture</h2>
  <p>Runs one of the fixtures Sandbank ships through the API as this merchant: the same operations, ledger,
  events and webhooks as requests of its own (see docs/guide/fixtures.md). Existing objects are kept.</p>
  <form method="post" action="/dashboard/fixtures">${csrfField(c)}
    <label>Fixture <select name="name" data-testid="fixture-name">${shippedFixtures().map(
      (fixture) =>
        html`<option value="${fixture.name}" title="${fixture.description}">${fixture.name}</option>`,
    )}</select></label>
    <button type="submit" data-testid="apply-fixture">Apply fixture</button>
  </form>
  ${
    flash?.fixtureSteps
      ? html`<ol class="muted" data-testid="fixture-steps">${flash.fixtureSteps.map((line) => html`<li><code>${line}</code></li>`)}</ol>`
      : ''
  }
</section>`;
}
