import { Hono } from 'hono';
import { html } from 'hono/html';
import { fileAsset, serveAssets } from '../http/assets.ts';
import { webFile } from '../http/files.ts';
import { pageSecurityHeaders } from '../http/security.ts';

const SVG = 'image/svg+xml';

/**
 * Sandbank's icon: one small SVG of this repository (a bank's pediment and columns), no external
 * asset. /favicon.ico answers the same SVG (browsers ask for that name on their own; they read an
 * SVG by its content type, and one file needs no redirect round trip).
 */
const ICONS = {
  'favicon.svg': fileAsset(webFile('assets', 'favicon.svg'), SVG),
  'favicon.ico': fileAsset(webFile('assets', 'favicon.svg'), SVG),
};

/** The `<link rel=icon>` every page's head carries. */
export const FAVICON_LINK = html`<link rel="icon" href="/favicon.svg" type="image/svg+xml">`;
/** The same, as a plain string (pages built without hono/html). */
export const FAVICON_LINK_TEXT = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';

/** GET /favicon.svg and GET /favicon.ico (mounted at the root), cacheable, with the pages' headers. */
export function buildFavicon() {
  const app = new Hono();
  // The headers on the route only: a '*' middleware here would run for every path of the app it joins.
  app.get('/:name{favicon\\.(?:svg|ico)}', pageSecurityHeaders(), serveAssets(ICONS));
  return app;
}
