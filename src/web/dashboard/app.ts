import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CSS, fileAsset, JAVASCRIPT, serveAssets } from '../../http/assets.ts';
import { MAX_BODY_BYTES } from '../../http/body-limit.ts';
import { webFile } from '../../http/files.ts';
import { pageSecurityHeaders } from '../../http/security.ts';
import { refuseUnstorableInput } from '../../http/storable-text.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { registerAccountPages } from './account.ts';
import { registerCardPages } from './cards.ts';
import { registerChaosAction } from './chaos.ts';
import { registerClockActions } from './clock.ts';
import { registerConformancePages } from './conformance.ts';
import { registerCounterpartyPages } from './counterparties.ts';
import { registerCreatePages } from './create.ts';
import { registerDisputePages } from './disputes.ts';
import { registerFixtureAction } from './fixtures.ts';
import { registerFxPages } from './fx.ts';
import { registerHomePage } from './home.ts';
import { registerInboundTransferPages } from './inbound-transfers.ts';
import { publicShell, shell } from './layout.ts';
import { registerLogPages } from './logs.ts';
import { registerPaymentRequestPages } from './payment-requests.ts';
import { registerReconciliationPages } from './reconciliation.ts';
import { registerResetAction } from './reset.ts';
import { csrfValid, type DashContext, type DashEnv, loadSession } from './session.ts';
import { registerSnapshotActions } from './snapshots.ts';
import { registerStatementPages } from './statements.ts';
import { registerTransactionPages } from './transactions.ts';
import { registerWebhookPages } from './webhooks.ts';

/**
 * The merchant dashboard at /dashboard: server-rendered pages over the same service
 * functions as REST and GraphQL (house rule: one service layer, docs/internals/house-rules.md), a session cookie, CSRF tokens on every form,
 * a Content-Security-Policy without inline script or style, and live updates over graphql-ws.
 */

/** Paths that answer without a session (sign-in, sign-up, the static assets). */
const PUBLIC_PATHS = [/^\/dashboard\/login(\/[^/]+)?$/, /^\/dashboard\/signup$/, /^\/dashboard\/assets\//];

const graphqlWsUmd = join(dirname(createRequire(import.meta.url).resolve('graphql-ws')), '..', 'umd');

/** The static files of the dashboard: its script, its stylesheet, and graphql-ws's browser build. */
const ASSETS = {
  'dashboard.js': fileAsset(webFile('dashboard', 'assets', 'dashboard.js'), JAVASCRIPT),
  'dashboard.css': fileAsset(webFile('dashboard', 'assets', 'dashboard.css'), CSS),
  'graphql-ws.min.js': fileAsset(join(graphqlWsUmd, 'graphql-ws.min.js'), JAVASCRIPT),
};

/** A page that says why a request was not served (every dashboard response keeps the CSP). */
function problem(
  c: DashContext,
  status: ContentfulStatusCode,
  title: string,
  message: string,
  testId: string,
): Response | Promise<Response> {
  c.status(status);
  return publicShell(
    c,
    title,
    html`<p class="error" data-testid="${testId}">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}

function refuse(c: DashContext, status: 403, message: string) {
  return problem(c, status, 'Refused', message, 'refused');
}

export function buildDashboard() {
  const app = new Hono<DashEnv>();

  app.use('*', pageSecurityHeaders({ referrerPolicy: 'same-origin' }));
  app.get('/assets/:name', serveAssets(ASSETS));

  // The same 64 KiB bound as the API, answered as a page of the dashboard (with its headers).
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => problem(c, 413, 'Too large', 'This form sent more than 64 KiB.', 'problem'),
    }),
  );

  app.use('*', refuseUnstorableInput);

  app.use('*', loadSession);

  // Signed out: every page but sign-in and sign-up sends the browser to sign in.
  app.use('*', async (c, next) => {
    if (c.get('session') || PUBLIC_PATHS.some((pattern) => pattern.test(c.req.path))) return next();
    const back = c.req.method === 'GET' ? `?next=${encodeURIComponent(c.req.path)}` : '';
    return c.redirect(`/dashboard/login${back}`, 303);
  });

  // Every form carries the CSRF token of its browser (the session's, or the signed-out cookie's).
  app.use('*', async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const type = c.req.header('content-type') ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data'))
      return refuse(c, 403, 'The dashboard takes its own forms only.');
    const form = await c.req.parseBody();
    const token = typeof form._csrf === 'string' ? form._csrf : undefined;
    if (!csrfValid(c, token))
      return refuse(
        c,
        403,
        'This form was refused: its CSRF token is missing or wrong. Reload the page and try again.',
      );
    return next();
  });

  // A service's expected failure that a page did not turn into a message: its status and message
  // (an unknown id is a 404 page); anything else is a 500 page naming the request id, never a stack.
  app.onError((error, c) => {
    if (error instanceof SandbankError && error.code === 'resource_not_found' && c.get('session')) {
      // An id the merchant has no object for: a page of the dashboard (menu and clock) that says so.
      c.status(404);
      return shell(
        c,
        { title: 'Not found' },
        html`<p class="error" data-testid="not-found">${error.message}</p>`,
      );
    }
    if (error instanceof SandbankError) {
      const status = error.status as ContentfulStatusCode;
      return problem(c, status, status === 404 ? 'Not found' : 'Not done', error.message, 'problem');
    }
    c.get('deps').logger.error({ err: error, request_id: c.get('requestId') }, 'dashboard error');
    return problem(
      c,
      500,
      'Something went wrong',
      `The dashboard could not answer (request ${c.get('requestId')}).`,
      'problem',
    );
  });

  registerAccountPages(app);
  registerClockActions(app);
  registerResetAction(app);
  registerSnapshotActions(app);
  registerFixtureAction(app);
  registerChaosAction(app);
  registerHomePage(app);
  registerTransactionPages(app);
  registerCreatePages(app);
  registerCardPages(app);
  registerDisputePages(app);
  registerPaymentRequestPages(app);
  registerStatementPages(app);
  registerReconciliationPages(app);
  registerCounterpartyPages(app);
  registerFxPages(app);
  registerInboundTransferPages(app);
  registerWebhookPages(app);
  registerLogPages(app);
  registerConformancePages(app);

  // Any other path under /dashboard: a page of the dashboard (menu, clock) that says so and links
  // home, with status 404 (signed out, the middleware above has sent the browser to sign in).
  app.all('*', (c) => {
    c.status(404);
    return shell(
      c,
      { title: 'Page not found' },
      html`<p class="error" data-testid="not-found">There is no dashboard page at <code>${c.req.path}</code>.</p>
<p><a href="/dashboard" data-testid="back-home">Back to the dashboard</a></p>`,
    );
  });
  return app;
}
