import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The outside tier's tools live in test/outside/node_modules, installed on demand from
 * test/outside/package-lock.json (npm ci, by scripts/extras.mjs), so that a clone's own install
 * stays small.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  const result = spawnSync(
    process.execPath,
    [join(root, 'scripts', 'extras.mjs'), 'install', 'test/outside'],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0)
    throw new Error("installing the outside tier's tools (npm ci in test/outside) failed");
}
