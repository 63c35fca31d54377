import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let webRoot: string | null = null;

/**
 * A file that ships with the web pages (their scripts and stylesheets), under src/web: found from
 * this module's location whether the server runs from src/ or from the bundle in dist/.
 */
export function webFile(...parts: string[]): string {
  if (!webRoot) {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let up = 0; up < 5 && !webRoot; up++, dir = dirname(dir)) {
      for (const candidate of [dir, join(dir, 'src', 'web')]) {
        if (existsSync(join(candidate, 'assets', 'page.css'))) webRoot = candidate;
      }
    }
    if (!webRoot) throw new Error('Cannot find src/web/assets beside the server.');
  }
  return join(webRoot, ...parts);
}
