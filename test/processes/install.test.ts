import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * CI installs with `npm ci`, which refuses a lock file that does not list every dependency of
 * package.json, including the optional per-platform packages of tools such as Biome and esbuild.
 */
const root = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'sandbank-lock-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

/** Where npm would resolve `name` from the package at `path` (its own node_modules, then upwards). */
function resolves(packages: Record<string, LockEntry>, path: string, name: string): boolean {
  let at = path;
  for (;;) {
    if (packages[`${at ? `${at}/` : ''}node_modules/${name}`]) return true;
    if (!at) return false;
    const up = at.lastIndexOf('/node_modules/');
    at = up < 0 ? '' : at.slice(0, up);
  }
}

/** The clone's own install and the folders whose tools install on demand (scripts/extras.mjs). */
const FOLDERS = ['.', 'tools', 'bench', 'test/outside'];

/** What a contributor's `npm install` may weigh at most, in packages (the size in MB is checked by CI). */
const MAX_PACKAGES = 300;

describe.each(FOLDERS)('the lock file of %s', (folder) => {
  it('lists every optional dependency of every locked package', () => {
    const lock = JSON.parse(readFileSync(join(root, folder, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(lock.packages, path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('is accepted by npm ci', async () => {
    const dir = join(work, folder.replace('/', '-'));
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(root, folder, 'package.json'), join(dir, 'package.json'));
    copyFileSync(join(root, folder, 'package-lock.json'), join(dir, 'package-lock.json'));
    const run = promisify(execFile);
    const result = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
    }).then(
      ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
      (error: { stderr?: string }) => ({ ok: false, output: error.stderr ?? String(error) }),
    );
    expect(result.output).not.toMatch(/npm (ERR|error)/);
    expect(result.ok).toBe(true);
    if (folder === '.') {
      // The clone's own install: small, and without a package that refuses the Node it promises.
      expect(result.output).not.toContain('EBADENGINE');
      const added = Number(/added (\d+) packages?/.exec(result.output)?.[1]);
      expect(added).toBeGreaterThan(50);
      expect(added).toBeLessThanOrEqual(MAX_PACKAGES);
    }
  });
});
