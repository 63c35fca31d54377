import type { MiddlewareHandler } from 'hono';

/**
 * The Content-Security-Policy of every page the server renders (the dashboard, the checkout, the
 * 3-D Secure pages, /docs, GraphiQL): scripts and styles only from files this server serves (no
 * inline script or style), no plugins, no framing, forms posted only here.
 * `formAction` adds origins a form may end at: a checkout's form answers with a redirect to the
 * merchant's `redirect_url`, and browsers hold that redirect to `form-action` too.
 * `inlineStyle` lets the page's scripts apply inline styles (GraphiQL only: its Monaco editor
 * writes style attributes and style elements as it lays out text); scripts stay 'self' even then.
 */
export function pageCsp(options: { formAction?: string[]; inlineStyle?: boolean } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    options.inlineStyle ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    ['form-action', "'self'", ...(options.formAction ?? [])].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const PAGE_CSP = pageCsp();

/**
 * The security headers of the rendered pages, one middleware for all of them. A response that set
 * its own CSP (a checkout with a redirect_url) or Cache-Control (a static asset, cacheable) keeps
 * it; every other page is `no-store`, so a browser or proxy keeps no copy of a payer's page.
 * `Referrer-Policy: no-referrer` by default: the link of a checkout or challenge carries its secret,
 * which must not leave in a Referer header; the dashboard keeps `same-origin`.
 */
export function pageSecurityHeaders(
  options: { referrerPolicy?: 'no-referrer' | 'same-origin'; csp?: string } = {},
): MiddlewareHandler {
  const referrerPolicy = options.referrerPolicy ?? 'no-referrer';
  const csp = options.csp ?? PAGE_CSP;
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    if (!headers.has('Content-Security-Policy')) headers.set('Content-Security-Policy', csp);
    if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
    headers.set('X-Frame-Options', 'DENY');
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', referrerPolicy);
  };
}
