import { Hono } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { CSS, fileAsset, JAVASCRIPT, serveAssets } from '../http/assets.ts';
import { webFile } from '../http/files.ts';
import { pageSecurityHeaders } from '../http/security.ts';
import { FAVICON_LINK } from './favicon.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The payer pages' stylesheet and script, served at /assets/… (their CSP allows no inline ones). */
const PAGE_ASSETS = {
  'page.css': fileAsset(webFile('assets', 'page.css'), CSS),
  'checkout.js': fileAsset(webFile('assets', 'checkout.js'), JAVASCRIPT),
};

/** /assets: the static files of the payer pages, with the pages' security headers. */
export function buildPageAssets() {
  const app = new Hono();
  app.use('*', pageSecurityHeaders());
  app.get('/:name', serveAssets(PAGE_ASSETS));
  return app;
}

/** A payer page (or the landing page, `wide`: its tables need more than a form's width). */
export function page(title: string, body: Html, options: { wide?: boolean } = {}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sandbank</title>
<link rel="stylesheet" href="/assets/page.css">
${FAVICON_LINK}
<script src="/assets/checkout.js" defer></script>
</head>
<body>
<div class="test-mode" role="status">TEST MODE · Sandbank sandbox · no real money moves</div>
<main${options.wide ? html` class="wide"` : ''}>${body}</main>
</body>
</html>`;
}
