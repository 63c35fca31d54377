#!/usr/bin/env node
// The `sandbank` command. With no argument, or only the server's flags (`sandbank`, `sandbank --memory
// --port 4300`), it starts the server in this process (dist/main.js, as `npm start` does); with a
// command (merchants create, keys roll, listen, reset, test, --help) it runs the CLI (dist/cli.js). In a
// clone that was never built, or whose sources are newer than its build, the TypeScript sources run
// through tsx instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
/** Only the server's own flags (`--memory`, `--port N`): anything else is a CLI command or option. */
function serverFlagsOnly(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--memory') continue;
    if (args[i] === '--port' && i + 1 < args.length) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}
const serve = serverFlagsOnly(argv);
const entry = serve ? 'main' : 'cli';
const built = join(root, 'dist', `${entry}.js`);
// In a clone whose sources changed since the last build, the sources run (through tsx), never the
// stale build; an installed package has no sources and always runs its build.
const source = join(root, 'src', `${entry}.ts`);
let useBuild = existsSync(built);
if (useBuild && existsSync(source) && existsSync(join(root, 'node_modules', 'tsx'))) {
  const { buildAge } = await import('../scripts/ensure-build.mjs');
  const { built: builtAt, sources } = buildAge();
  useBuild = builtAt >= sources;
}
if (serve && useBuild) {
  // The server reads its flags from process.argv.slice(2): the same as `node dist/main.js <flags>`.
  await import(pathToFileURL(built).href);
} else {
  const args = useBuild ? [built, ...argv] : ['--import', 'tsx', source, ...argv];
  // A child of its own, which the signals this command gets are passed on to (a Ctrl-C, or a
  // supervisor's SIGTERM, stops `sandbank listen` too, not only this wrapper).
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.once('exit', (code, signal) =>
    process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)),
  );
}
