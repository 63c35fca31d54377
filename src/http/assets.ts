import { readFileSync } from 'node:fs';
import type { Handler } from 'hono';

export const JAVASCRIPT = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';

/** A static file of a page: its content type, and where its body comes from (read once, then kept). */
export interface Asset {
  type: string;
  load: () => string | Promise<string>;
}

export const fileAsset = (path: string, type: string): Asset => ({
  type,
  load: () => readFileSync(path, 'utf8'),
});

/**
 * The handler of `…/:name` for a page's static files (scripts and stylesheets the CSP allows as
 * 'self'): a name outside `assets` is a 404. Cacheable for five minutes; the files ship with the server.
 */
export function serveAssets(assets: Record<string, Asset>): Handler {
  const cache = new Map<string, string>();
  return async (c) => {
    const name = c.req.param('name') ?? '';
    const asset = Object.hasOwn(assets, name) ? assets[name] : undefined;
    if (!asset) return c.text('Not found', 404);
    let body = cache.get(name);
    if (body === undefined) {
      body = await asset.load();
      cache.set(name, body);
    }
    return c.body(body, 200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=300' });
  };
}
