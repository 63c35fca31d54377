import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { CSS, fileAsset, JAVASCRIPT, serveAssets } from '../http/assets.ts';
import { webFile } from '../http/files.ts';
import { pageSecurityHeaders } from '../http/security.ts';
import { FAVICON_LINK_TEXT } from './favicon.ts';

const require = createRequire(import.meta.url);

/**
 * /docs: the OpenAPI document rendered by Swagger UI, served from node_modules (works offline),
 * started by a served script (the page's CSP allows no inline one).
 */
export function buildDocs() {
  const app = new Hono();
  // The package's folder, without loading its index (which evaluates the whole Swagger UI bundle).
  const swagger = dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = {
    'swagger-ui.css': fileAsset(join(swagger, 'swagger-ui.css'), CSS),
    'swagger-ui-bundle.js': fileAsset(join(swagger, 'swagger-ui-bundle.js'), JAVASCRIPT),
    'docs.js': fileAsset(webFile('assets', 'docs.js'), JAVASCRIPT),
  };
  app.use('*', pageSecurityHeaders());
  app.get('/', (c) =>
    c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbank API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">${FAVICON_LINK_TEXT}</head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs.js"></script>
</body></html>`),
  );
  app.get('/assets/:name', serveAssets(assets));
  return app;
}
