import type { GraphiQLOptions } from 'graphql-yoga';
import type { AppDeps } from '../../deps.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { secretsEqual } from '../../kernel/secrets.ts';
import {
  type DashboardSession,
  sessionFor,
  sessionTokenOf,
} from '../../modules/dashboard/dashboard.service.ts';
import type { Principal } from '../../modules/merchants/authentication.ts';

/**
 * GraphiQL opened from a signed-in dashboard runs as the dashboard's merchant, without a key in the
 * page (docs/guide/graphiql-session.md). A request of /graphql without an Authorization header is the
 * session's when all three hold:
 *
 * - it carries the dashboard's session cookie (HttpOnly, SameSite=Lax: another site's page cannot
 *   make a browser send it with a POST);
 * - its `X-CSRF-Token` header is that session's CSRF token, the one the dashboard's forms carry (a
 *   page of another origin cannot read it, and a custom header needs a CORS preflight that only
 *   PUBLIC_URL's origin passes);
 * - its Origin is PUBLIC_URL's (as for graphql-ws from the dashboard; the Host header is the
 *   client's to choose, so it proves nothing).
 */
export const CSRF_HEADER = 'X-CSRF-Token';

async function sessionOf(
  deps: AppDeps,
  request: Request,
): Promise<(DashboardSession & { token: string }) | null> {
  const token = sessionTokenOf(request.headers.get('cookie') ?? undefined);
  const session = token ? await sessionFor(deps.database.db, systemClock, token) : null;
  return session && token ? { ...session, token } : null;
}

/**
 * The principal of a request that rides the dashboard session, with the session (its cookie's
 * token and expiry: a live subscription it opens ends with it), null when it does not try to (no
 * CSRF header); throws 401 when it tries and fails (a wrong token, another origin, a session that
 * has ended), so the answer says why instead of asking for a key.
 */
export async function dashboardSessionPrincipal(
  deps: AppDeps,
  request: Request,
): Promise<{ principal: Principal; token: string; expiresAt: Date } | null> {
  const submitted = request.headers.get(CSRF_HEADER);
  if (submitted === null) return null;
  const origin = request.headers.get('origin');
  const session = origin === new URL(deps.publicUrl).origin ? await sessionOf(deps, request) : null;
  if (!session || !secretsEqual(session.csrfToken, submitted)) {
    throw new SandbankError('api_key_invalid', {
      message:
        'This request carries X-CSRF-Token but no dashboard session it matches (signed out, expired, or not from this server): sign in to the dashboard again and reopen GraphiQL, or send Authorization: Bearer sk_test_….',
    });
  }
  return {
    principal: { merchant: session.merchant, keyKind: 'secret' },
    token: session.token,
    expiresAt: session.expiresAt,
  };
}

const PLACEHOLDER_HEADERS = JSON.stringify({ Authorization: 'Bearer sk_test_...' }, null, 2);

/**
 * GraphiQL's options for the browser that opens it: signed in to the dashboard, its headers editor
 * holds the session's CSRF token (no key: the cookie does the rest, and the page is no-store);
 * otherwise a placeholder for the secret key. Headers are never persisted in the browser's storage.
 */
export async function graphiqlOptionsFor(deps: AppDeps, request: Request): Promise<GraphiQLOptions> {
  const session = await sessionOf(deps, request);
  return {
    title: session ? `Sandbank GraphQL · ${session.merchant.name}` : 'Sandbank GraphQL',
    headers: session ? JSON.stringify({ [CSRF_HEADER]: session.csrfToken }, null, 2) : PLACEHOLDER_HEADERS,
    shouldPersistHeaders: false,
  };
}
