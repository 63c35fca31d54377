import type { GraphiQLOptions } from 'graphql-yoga';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { type Asset, CSS, fileAsset, JAVASCRIPT, serveAssets } from '../../http/assets.ts';
import { webFile } from '../../http/files.ts';
import { pageCsp, pageSecurityHeaders } from '../../http/security.ts';

/**
 * GraphiQL's CSP: the pages' own, but its Monaco editor writes style attributes and style elements
 * at run time (refused otherwise, hundreds of times, and the editor lays out wrong), so inline
 * styles are allowed on this page. Scripts stay 'self': nothing inline runs.
 */
export const GRAPHIQL_CSP = pageCsp({ inlineStyle: true });
/**
 * GraphiQL's bundle is 9 MB of source text: it is loaded when its first file is asked for, not
 * when the server starts.
 */
const bundle = () => import('@graphql-yoga/render-graphiql/graphiql');
const fromBundle = (type: string, pick: (files: Awaited<ReturnType<typeof bundle>>) => string): Asset => ({
  type,
  load: async () => pick(await bundle()),
});

/**
 * GraphiQL's files, served at /graphql/assets/… from the package (works offline): Yoga's own page
 * inlines them all (script, style, its editor's workers as blob: URLs), which a CSP of
 * `script-src 'self'` without 'unsafe-inline' refuses.
 */
const GRAPHIQL_ASSETS = {
  'graphiql.css': fromBundle(CSS, (files) => files.css),
  'yoga-graphiql.js': fromBundle(JAVASCRIPT, (files) => files.js),
  'editor.worker.js': fromBundle(JAVASCRIPT, (files) => files.editorWorkerService),
  'json.worker.js': fromBundle(JAVASCRIPT, (files) => files.jsonWorker),
  'graphql.worker.js': fromBundle(JAVASCRIPT, (files) => files.graphqlWorker),
  'graphiql.js': fileAsset(webFile('assets', 'graphiql.js'), JAVASCRIPT),
};

/** GraphiQL's page (Yoga's `renderGraphiQL`): its scripts and style are the files above. */
export async function renderGraphiQL(options?: GraphiQLOptions): Promise<string> {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${options?.title ?? 'GraphiQL'}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/graphql/assets/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root" data-options="${JSON.stringify(options ?? {})}"></div>
<script src="/graphql/assets/yoga-graphiql.js"></script>
<script src="/graphql/assets/graphiql.js"></script>
</body>
</html>`.toString();
}

/** /graphql/assets: GraphiQL's files, with the pages' security headers. */
export function buildGraphiQLAssets() {
  const app = new Hono();
  app.use('*', pageSecurityHeaders());
  app.get('/:name', serveAssets(GRAPHIQL_ASSETS));
  return app;
}
