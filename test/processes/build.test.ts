import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from './server-process.ts';

vi.setConfig({ testTimeout: 120_000 });

/**
 * `prepare` (run by npm install and again by npm pack) keeps a dist/ newer than its sources. Checked
 * on a copy of what the build reads (src, migrations, package files, the build scripts) with a dist/
 * holding only its stamp: the repository's own dist/, which other tests start, is never touched,
 * and nothing is built for real (a rebuild would fill the copy's dist/, which the tests look at).
 */
let copy: string;
const stamp = () => join(copy, 'dist', 'BUILT');
const STAMP_TEXT = 'stamp written by build.test.ts\n';

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'sandbank-build-'));
  for (const path of ['src', 'migrations', 'bin', 'package.json', 'package-lock.json', 'README.md'])
    cpSync(join(ROOT, path), join(copy, path), { recursive: true });
  mkdirSync(join(copy, 'scripts'));
  for (const script of ['build.mjs', 'ensure-build.mjs'])
    cpSync(join(ROOT, 'scripts', script), join(copy, 'scripts', script));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  // The stamp a finished build writes, after every source (copied just now) was written.
  mkdirSync(join(copy, 'dist'));
  writeFileSync(stamp(), STAMP_TEXT);
  const after = new Date(Date.now() + 1000);
  utimesSync(stamp(), after, after);
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

/** The build's freshness check of the copy (scripts/ensure-build.mjs, imported: it builds only when run). */
async function buildAge(): Promise<{ built: number; sources: number }> {
  const module = (await import(
    `${pathToFileURL(join(copy, 'scripts', 'ensure-build.mjs')).href}?at=${Date.now()}`
  )) as { buildAge: () => { built: number; sources: number } };
  return module.buildAge();
}

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, {
    cwd: copy,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function distUnchanged(mtimeMs: number): void {
  expect(readdirSync(join(copy, 'dist'))).toEqual(['BUILT']);
  expect(readFileSync(stamp(), 'utf8')).toBe(STAMP_TEXT);
  expect(statSync(stamp()).mtimeMs).toBe(mtimeMs);
}

describe('prepare keeps a dist/ that is up to date', () => {
  it('is the command package.json runs as prepare', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.prepare).toBe('node scripts/build.mjs --if-possible --if-stale');
  });

  it('npm run prepare and npm pack --dry-run say dist/ is up to date and build nothing', async () => {
    const { built, sources } = await buildAge();
    expect(built).toBeGreaterThanOrEqual(sources);
    const before = statSync(stamp()).mtimeMs;
    const prepare = run('npm', ['run', 'prepare']);
    expect(prepare.status, prepare.output).toBe(0);
    expect(prepare.output).toContain(
      'sandbank: dist/ is up to date (built after its sources changed); not built again.',
    );
    expect(prepare.output).not.toMatch(/sandbank: built dist\//);
    distUnchanged(before);
    const pack = run('npm', ['pack', '--dry-run']);
    expect(pack.status, pack.output).toBe(0);
    expect(pack.output).toContain('sandbank: dist/ is up to date');
    expect(pack.output).not.toMatch(/sandbank: built dist\//);
    distUnchanged(before);
  });

  it('reports dist/ stale once a source, a migration or the lock file changes after the stamp', async () => {
    const built = statSync(stamp()).mtimeMs;
    for (const path of [
      join('src', 'main.ts'),
      join('migrations', 'meta', '_journal.json'),
      'package-lock.json',
    ]) {
      const file = join(copy, path);
      const original = statSync(file);
      const later = new Date(built + 5000);
      utimesSync(file, later, later);
      const age = await buildAge();
      expect(age.built, path).toBe(built);
      expect(age.sources, path).toBeGreaterThan(age.built);
      // Put back: the next path is judged alone.
      utimesSync(file, original.atime, original.mtime);
      const restored = await buildAge();
      expect(restored.sources, path).toBeLessThanOrEqual(restored.built);
    }
  });
});
