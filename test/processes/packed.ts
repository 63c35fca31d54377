import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './server-process.ts';

/**
 * The sandbank package as npm ships it, installed in an empty folder: `npm pack` of this clone
 * (dist/ built first when the sources are newer), the tarball unpacked as node_modules/sandbank and,
 * beside it, only the dependencies the package declares, linked from this clone's install (no
 * network: the suite talks to loopback only). The commands npm would put in node_modules/.bin are
 * there too (`npx sandbank`), and so are the test runners asked for (`npx vitest`, `npx jest`).
 */
export interface PackedInstall {
  /** The consumer project: package.json, node_modules/sandbank, node_modules/.bin. */
  consumer: string;
  /** The tarball npm pack made. */
  tarball: string;
  /** Every path in the tarball, relative to the package's root. */
  files: string[];
  /** Deletes the tarball and the consumer project. */
  remove(): void;
}

/**
 * For npx in the consumer project: the commands come from its node_modules/.bin or not at all. npx
 * would otherwise fetch a package of that name from the registry when a link is missing (this suite
 * never reaches past loopback, and a stranger's "sandbank" must never run).
 */
export const NPX_LOCAL_ONLY = { npm_config_offline: 'true', npm_config_yes: 'false' } as const;

/**
 * Runs a command to its end, with its stdout and stderr together: the child's NODE_OPTIONS cleared
 * (none of this runner's), and no colours (its output is matched as plain text).
 */
export function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  /** Kills the command's whole process group after this long, its output kept (for the failure). */
  timeoutMs = 100_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const environment: Record<string, string | undefined> = {
      ...process.env,
      ...NPX_LOCAL_ONLY,
      NODE_OPTIONS: '',
      NO_COLOR: '1',
    };
    delete environment.FORCE_COLOR;
    const child = spawn(command, args, { cwd, env: { ...environment, ...env }, detached: true });
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs} ms: ${command} ${args.join(' ')} had not finished)\n`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface Manifest {
  name: string;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
}

function manifest(directory: string): Manifest {
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest;
}

/** node_modules/.bin/<command> for each command the package at `directory` declares, as npm links them. */
function linkBins(nodeModules: string, directory: string): void {
  const { name, bin } = manifest(directory);
  if (!bin) return;
  const commands = typeof bin === 'string' ? { [name.split('/').pop() as string]: bin } : bin;
  const dotBin = join(nodeModules, '.bin');
  mkdirSync(dotBin, { recursive: true });
  for (const [command, target] of Object.entries(commands)) {
    symlinkSync(relative(dotBin, join(nodeModules, name, target)), join(dotBin, command));
  }
}

/** The clone's own install first, then the outside tier's tools (test/outside/node_modules: jest). */
function linkPackage(nodeModules: string, name: string): void {
  const link = join(nodeModules, name);
  const from = [join(ROOT, 'node_modules', name), join(ROOT, 'test', 'outside', 'node_modules', name)].find(
    (path) => existsSync(path),
  );
  if (!from) throw new Error(`${name} is installed neither in node_modules nor in test/outside/node_modules`);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(from, link, 'dir');
}

/**
 * Packs this clone and installs the tarball in an empty folder. `tools`: packages of this clone's
 * devDependencies to install beside it (test runners such as vitest or jest), with their commands.
 */
export async function installPackedPackage(options: { tools?: string[] } = {}): Promise<PackedInstall> {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'ensure-build.mjs')], {
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
  const work = mkdtempSync(join(tmpdir(), 'sandbank-pack-'));
  try {
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
    if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
    const [packed] = JSON.parse(pack.output.slice(pack.output.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (!packed) throw new Error(`npm pack answered nothing: ${pack.output}`);
    const tarball = join(work, packed.filename);
    const consumer = join(work, 'consumer');
    const nodeModules = join(consumer, 'node_modules');
    const installed = join(nodeModules, 'sandbank');
    mkdirSync(installed, { recursive: true });
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    if (untar.status !== 0) throw new Error(`tar failed: ${String(untar.stderr)}`);
    for (const name of Object.keys(manifest(installed).dependencies ?? {})) linkPackage(nodeModules, name);
    linkBins(nodeModules, installed);
    for (const tool of options.tools ?? []) {
      linkPackage(nodeModules, tool);
      linkBins(nodeModules, join(nodeModules, tool));
    }
    writeFileSync(
      join(consumer, 'package.json'),
      '{ "name": "consumer", "private": true, "type": "module" }\n',
    );
    return {
      consumer,
      tarball,
      files: packed.files.map((file) => file.path),
      remove: () => rmSync(work, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}
