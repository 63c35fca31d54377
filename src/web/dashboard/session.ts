import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { type AppDeps, processContextOf } from '../../deps.ts';
import { systemClock } from '../../kernel/clock.ts';
import { secretsEqual } from '../../kernel/secrets.ts';
import type { ServiceContext } from '../../modules/context.ts';
import {
  DASHBOARD_SESSION_COOKIE,
  type DashboardSession,
  newToken,
  SESSION_HOURS,
  sessionFor,
} from '../../modules/dashboard/dashboard.service.ts';

/** The dashboard's cookies: the session (HttpOnly, Lax, 12 h) and the signed-out forms' CSRF token. */
export const SESSION_COOKIE = DASHBOARD_SESSION_COOKIE;
const ANONYMOUS_CSRF_COOKIE = 'sandbank_csrf';

export type DashEnv = {
  Variables: {
    deps: AppDeps;
    requestId: string;
    session: DashboardSession | null;
    sessionToken: string | null;
  };
};
export type DashContext = Context<DashEnv>;

function secure(c: DashContext): boolean {
  return c.get('deps').publicUrl.startsWith('https:');
}

/** Starts a browser session: the cookie is HttpOnly, SameSite=Lax, Path=/ (graphql-ws reads it too). */
export function setSessionCookie(c: DashContext, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: secure(c),
    maxAge: SESSION_HOURS * 3600,
  });
}

export function clearSessionCookie(c: DashContext): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: secure(c) });
}

/** Loads the session of the cookie, if any (real time: sessions are not business time). */
export const loadSession: MiddlewareHandler<DashEnv> = async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE) ?? null;
  const session = token ? await sessionFor(c.get('deps').database.db, systemClock, token) : null;
  c.set('session', session);
  c.set('sessionToken', session ? token : null);
  await next();
};

/** The signed-in merchant's service context (the merchant's own clock, as the API uses). */
export async function dashboardContext(c: DashContext): Promise<ServiceContext> {
  const session = c.get('session');
  if (!session) throw new Error('dashboardContext without a session');
  const deps = c.get('deps');
  return {
    ...processContextOf(deps),
    clock: await deps.clockFor(session.merchant.id),
    merchant: session.merchant,
  };
}

/**
 * The CSRF token the forms of this page carry: the session's, or for the signed-out forms (sign-in,
 * sign-up) a double-submit token kept in its own cookie.
 */
export function csrfTokenFor(c: DashContext): string {
  const session = c.get('session');
  if (session) return session.csrfToken;
  let token = getCookie(c, ANONYMOUS_CSRF_COOKIE);
  if (!token || token.length < 32 || token.length > 64) {
    token = newToken();
    setCookie(c, ANONYMOUS_CSRF_COOKIE, token, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/dashboard',
      secure: secure(c),
    });
  }
  return token;
}

/** Whether a submitted form's `_csrf` field matches the token this browser was given. */
export function csrfValid(c: DashContext, submitted: string | undefined): boolean {
  if (!submitted) return false;
  const session = c.get('session');
  const expected = session ? session.csrfToken : getCookie(c, ANONYMOUS_CSRF_COOKIE);
  return expected !== undefined && secretsEqual(expected, submitted);
}

/** A submitted form's text fields (files are ignored; the CSRF check has parsed the body already). */
export async function formOf(c: DashContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') form[name] = value;
  return form;
}

/** A form's fields with its lists: every value of a `name[]` (a checkbox list), in order. */
export async function formFieldsOf(c: DashContext): Promise<Record<string, string | string[]>> {
  const body = await c.req.parseBody();
  const form: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string') form[name] = value;
    else if (Array.isArray(value)) form[name] = value.filter((one): one is string => typeof one === 'string');
  }
  return form;
}

/** A path inside the dashboard to go back to, or the home page (never another site). */
export function dashboardPath(value: string | undefined, fallback = '/dashboard'): string {
  return value &&
    /^\/dashboard(\/[A-Za-z0-9_\-./%]*)?(\?[A-Za-z0-9_\-.=&%]*)?$/.test(value) &&
    !value.includes('//')
    ? value
    : fallback;
}
