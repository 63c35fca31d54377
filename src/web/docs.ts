import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Hono } from 'hono';

const require = createRequire(import.meta.url);
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

/** /docs: the OpenAPI document rendered by Swagger UI, served from node_modules (works offline). */
export function buildDocs() {
  const app = new Hono();
  const assetDir = (require('swagger-ui-dist') as { getAbsoluteFSPath: () => string }).getAbsoluteFSPath();
  app.get('/', (c) =>
    c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbank API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui', deepLinking: true });</script>
</body></html>`),
  );
  app.get('/assets/:file', async (c) => {
    const file = c.req.param('file');
    if (!ASSETS.has(file)) return c.notFound();
    const body = await readFile(join(assetDir, file));
    return c.body(body, 200, {
      'content-type': file.endsWith('.css') ? 'text/css' : 'text/javascript',
      'cache-control': 'public, max-age=3600',
    });
  });
  return app;
}
