#!/usr/bin/env node
/**
 * Tools a clone installs only when they are used, each folder with its own package.json and lock
 * file, so that `npm install` of the clone stays small:
 *
 *   tools/          Biome (npm run lint, npm run format) and drizzle-kit (npm run db:generate)
 *   bench/          the benchmark's peers (npm run bench)
 *   test/outside/   the outside tier's third-party validators, clients and runners
 *
 * Usage:
 *   node scripts/extras.mjs install <folder>...          npm ci in each folder whose install is missing or stale
 *   node scripts/extras.mjs run <folder> <bin> [args]    install <folder> if needed, then run its <bin>
 *
 * Each install is `npm ci` on the folder's lock file: the same versions on every machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const EXTRA_FOLDERS = ['tools', 'bench', 'test/outside'];

/** Whether `folder`'s install is missing or older than its lock file. */
export function stale(folder) {
  const lock = join(root, folder, 'package-lock.json');
  const installed = join(root, folder, 'node_modules', '.package-lock.json');
  if (!existsSync(lock)) throw new Error(`${folder}/package-lock.json is missing`);
  return !existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs;
}

/** `npm ci` in `folder` when its install is missing or stale; throws when npm fails. */
export function ensureInstalled(folder) {
  if (!EXTRA_FOLDERS.includes(folder)) throw new Error(`${folder} is not one of ${EXTRA_FOLDERS.join(', ')}`);
  if (!stale(folder)) return;
  console.error(`Installing ${folder}/'s tools (once, on demand: npm ci in ${folder})…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: join(root, folder),
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.status !== 0) throw new Error(`npm ci in ${folder} failed (exit ${result.status})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (command === 'install') {
      for (const folder of rest.length ? rest : EXTRA_FOLDERS) ensureInstalled(folder);
    } else if (command === 'run') {
      const [folder, bin, ...args] = rest;
      if (!folder || !bin) throw new Error('usage: extras.mjs run <folder> <bin> [args…]');
      ensureInstalled(folder);
      const binPath = join(root, folder, 'node_modules', '.bin', bin);
      const result = spawnSync(binPath, args, { stdio: 'inherit', shell: process.platform === 'win32' });
      process.exit(result.status ?? 1);
    } else {
      throw new Error('usage: extras.mjs install [folder…] | run <folder> <bin> [args…]');
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
