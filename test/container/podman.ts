/**
 * Podman for the container tests: the machine's settings, a local stand-in for the official Node
 * base image, and the images the tests build once per machine (cached by the content they come from).
 *
 * No registry is reachable here, so the base image (`node:20-bookworm-slim` for users) is assembled
 * locally: a minimal Debian bookworm (debootstrap), this machine's Node and npm in /usr/local, a
 * `node` user (uid 1000) as the official image has. These adaptations stay in the tests: the
 * Containerfile users build takes its base as the BASE build argument.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where the base's root file system and the podman settings live between runs. */
export const CACHE = process.env.SANDBANK_CONTAINER_CACHE ?? join(homedir(), '.cache', 'sandbank-container');

/**
 * The settings containers need on these machines: the runc runtime (crun refuses the hybrid cgroup
 * layout) and no ulimits or pids limit (raising limits is not permitted here).
 */
export const CONTAINERS_CONF = join(CACHE, 'containers.conf');

function writeConf(): void {
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(
    CONTAINERS_CONF,
    '[containers]\ndefault_ulimits = []\npids_limit = 0\n[engine]\nruntime = "runc"\n',
  );
}

export function podmanEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CONTAINERS_CONF };
}

/** Runs podman and returns its standard output (trimmed); throws with its output when it fails. */
export function podman(args: string[], options: { input?: string; timeoutMs?: number } = {}): string {
  const result = spawnSync('podman', args, {
    env: podmanEnv(),
    input: options.input,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `podman ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout.trim();
}

/** Why the container tests cannot run on this machine, or null when podman and its helpers are here. */
export function missingTools(): string | null {
  for (const tool of ['podman', 'runc', 'debootstrap']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  if (process.getuid?.() !== 0) return 'assembling the base image (debootstrap) needs root';
  return null;
}

export function imageExists(tag: string): boolean {
  return spawnSync('podman', ['image', 'exists', tag], { env: podmanEnv() }).status === 0;
}

function digest(...parts: (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex').slice(0, 12);
}

/**
 * The stand-in for node:20-bookworm-slim, tagged by the Node binary it holds. The root file system
 * is kept in the cache, so a second machine run only imports it again when Node changed.
 */
export function ensureBaseImage(log: (line: string) => void): string {
  writeConf();
  const node = realpathSync(process.execPath);
  const npm = realpathSync(join(dirname(node), '..', 'lib', 'node_modules', 'npm'));
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const tag = `localhost/sandbank-test-base:${digest(readFileSync(node), extraCa && existsSync(extraCa) ? readFileSync(extraCa) : '')}`;
  if (imageExists(tag)) return tag;
  const debian = join(CACHE, 'rootfs-bookworm');
  if (!existsSync(join(debian, '.complete'))) {
    log('container tests: assembling a minimal Debian bookworm (debootstrap, about a minute)…');
    rmSync(debian, { recursive: true, force: true });
    execFileSync(
      'debootstrap',
      ['--variant=minbase', 'bookworm', debian, process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    writeFileSync(join(debian, '.complete'), '');
  }
  const rootfs = join(CACHE, 'rootfs-base');
  rmSync(rootfs, { recursive: true, force: true });
  execFileSync('cp', ['-a', debian, rootfs]);
  rmSync(join(rootfs, '.complete'));
  cpSync(node, join(rootfs, 'usr/local/bin/node'));
  cpSync(npm, join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));
  // The official image's user.
  appendFileSync(join(rootfs, 'etc/passwd'), 'node:x:1000:1000::/home/node:/bin/bash\n');
  appendFileSync(join(rootfs, 'etc/group'), 'node:x:1000:\n');
  mkdirSync(join(rootfs, 'home/node'), { recursive: true });
  execFileSync('chown', ['1000:1000', join(rootfs, 'home/node')]);
  const changes = ['--change', 'CMD ["node"]'];
  // A machine that reaches the registry through a TLS-inspecting proxy trusts its CA through
  // NODE_EXTRA_CA_CERTS: the base trusts it too, or `npm ci` in the build cannot download.
  if (extraCa && existsSync(extraCa)) {
    cpSync(extraCa, join(rootfs, 'usr/local/share/extra-ca.crt'));
    changes.push('--change', 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.crt');
  }
  log(`container tests: importing the base image ${tag}…`);
  execFileSync(
    'sh',
    [
      '-c',
      `tar -C "$1" -c . | podman import ${changes.map((c) => `'${c}'`).join(' ')} - "$2"`,
      'sh',
      rootfs,
      tag,
    ],
    { env: podmanEnv(), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  rmSync(rootfs, { recursive: true, force: true });
  return tag;
}
