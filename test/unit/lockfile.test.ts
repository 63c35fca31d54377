import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

describe('the lock file', () => {
  it('lists every optional dependency of every locked package', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
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
    copyFileSync(join(root, 'package.json'), join(work, 'package.json'));
    copyFileSync(join(root, 'package-lock.json'), join(work, 'package-lock.json'));
    const run = promisify(execFile);
    const result = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: work,
    }).then(
      () => 'ok',
      (error: { stderr?: string }) => error.stderr ?? String(error),
    );
    expect(result).toBe('ok');
  });
});
