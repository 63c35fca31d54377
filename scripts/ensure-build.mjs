#!/usr/bin/env node
/**
 * Run as a script, before `npm start` (and `npm run sandbank`): builds dist/ when it is missing or older than the
 * sources, so a clone that was just pulled or edited never starts stale code. A production
 * install (no build tools) with a build in place starts as it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', 'BUILT');

/** The newest modification time under a path (files only). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** When dist/ was built (0 when never), and when the newest of what it is built from changed. */
export function buildAge() {
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  const sources = Math.max(
    ...['src', 'migrations', 'package.json', 'package-lock.json', 'scripts/build.mjs'].map((path) =>
      newest(join(root, path)),
    ),
  );
  return { built, sources };
}

const { built, sources } =
  process.argv[1] === fileURLToPath(import.meta.url) ? buildAge() : { built: 1, sources: 0 };
if (built < sources) {
  const canBuild = existsSync(join(root, 'node_modules', 'esbuild'));
  if (canBuild || !built) {
    const result = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
