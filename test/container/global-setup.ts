import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ensureBaseImage, missingTools, podmanEnv, ROOT } from './podman.ts';

/**
 * Once per run of the container tests: the local base image, then the Sandbank image built from the
 * repository's Containerfile on it, and the stack's Postgres and HAProxy stand-ins built from Debian's
 * packages on the same base (no registry is reachable here). Podman's layer cache makes a second
 * run on the same machine quick. The tags reach the test files through the environment.
 */
function imageId(tag: string): string | null {
  const result = spawnSync('podman', ['image', 'inspect', '--format', '{{.Id}}', tag], {
    env: podmanEnv(),
    encoding: 'utf8',
  });
  return result.status === 0 ? result.stdout.trim() : null;
}

export default function setup(): void {
  const missing = missingTools();
  if (missing) {
    if (process.env.CI === 'true' || process.env.SANDBANK_REQUIRE_CONTAINERS === '1') {
      throw new Error(
        `The container tests cannot run: ${missing} (apt-get install -y podman runc debootstrap).`,
      );
    }
    console.warn(`Container tests left out: ${missing} (apt-get install -y podman runc debootstrap).`);
    process.env.SANDBANK_CONTAINERS_MISSING = missing;
    return;
  }
  const log = (line: string) => console.log(line);
  const base = ensureBaseImage(log);
  process.env.SANDBANK_TEST_BASE_IMAGE = base;
  const build = (tag: string, args: string[]) => {
    log(`container tests: building ${tag}…`);
    const started = Date.now();
    const previous = imageId(tag);
    const result = spawnSync(
      'podman',
      ['build', '--format', 'docker', '--build-arg', `BASE=${base}`, '-t', tag, ...args],
      {
        cwd: ROOT,
        env: podmanEnv(),
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    if (result.status !== 0)
      throw new Error(`podman build ${tag} failed:\n${result.stdout}\n${result.stderr}`);
    log(`container tests: built ${tag} in ${Math.round((Date.now() - started) / 1000)} s`);
    // The image this build replaced under the tag (a run after a change) is removed, not left behind.
    if (previous && previous !== imageId(tag)) spawnSync('podman', ['rmi', previous], { env: podmanEnv() });
  };
  // The machine's npm cache (filled by the `npm ci` that came before) lends the build's `npm ci` its
  // downloads: mounted as an overlay, so the build writes nothing into it, and never into the image.
  const npmCache = process.env.npm_config_cache ?? join(homedir(), '.npm');
  const cache = existsSync(npmCache) ? ['-v', `${npmCache}:/root/.npm:O`] : [];
  build('localhost/sandbank:test', [...cache, '-f', 'Containerfile', '.']);
  process.env.SANDBANK_TEST_IMAGE = 'localhost/sandbank:test';
  build('localhost/sandbank-test-postgres:15', [
    '--target',
    'postgres',
    '-f',
    'test/container/infra.Containerfile',
    'test/container',
  ]);
  build('localhost/sandbank-test-haproxy:2.6', [
    '--target',
    'haproxy',
    '-f',
    'test/container/infra.Containerfile',
    'test/container',
  ]);
  process.env.SANDBANK_TEST_POSTGRES_IMAGE = 'localhost/sandbank-test-postgres:15';
  process.env.SANDBANK_TEST_HAPROXY_IMAGE = 'localhost/sandbank-test-haproxy:2.6';
}
