#!/usr/bin/env node
/**
 * The build `npm start` runs from (`npm run build`; `npm install` runs it too, as `prepare`):
 *
 * - dist/main.js and dist/cli.js: the server and the CLI (and dist/pglite-worker.js, the thread that
 *   runs PGlite) bundled by esbuild with their dependencies,
 *   so that starting reads a few files instead of compiling TypeScript and resolving hundreds of
 *   modules. Packages that find their own files at run time stay outside the bundle.
 * - dist/testing.js and dist/testing.d.ts: `sandbank/testing` (startSandbank and sandbankMerchant,
 *   for a developer's own tests) and its types; dist/testing-vitest-setup.js, testing-jest-setup.js
 *   and testing-jest-teardown.js: the test runners' global setups of its shared server.
 * - dist/pglite/: an initialized PGlite data folder with every migration applied, and the same as a
 *   tar: a fresh data folder is a copy of it and --memory loads the tar, so starting never runs
 *   initdb or the migrations (a migration added since the build is applied on open as before).
 *
 * With --if-possible (the `prepare` hook) an install without esbuild skips the build with a notice
 * instead of failing; with --if-stale (the `prepare` hook too) a dist/ newer than everything it is
 * built from is kept as it is, so that `npm pack` right after an install does not build it again.
 * Without typescript (a production install: `npm ci --omit=dev`) the server and the CLI are built
 * and only dist/testing.d.ts, the types of `sandbank/testing`, is left out.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const ifPossible = process.argv.includes('--if-possible');
const ifStale = process.argv.includes('--if-stale');

/**
 * The package's own modules (`exports` in package.json), each dist/<name>.js with its declarations
 * dist/<name>.d.ts: sandbank/testing and the global setups sandbank/testing/vitest-setup,
 * …/jest-setup and …/jest-teardown.
 */
const DECLARED = ['testing', 'testing-vitest-setup', 'testing-jest-setup', 'testing-jest-teardown'];

/**
 * Entry points, each its own file in dist/ (the names the launchers and the worker look for):
 * dist/pglite-worker.js is the thread that runs PGlite (src/db/pglite-proxy.ts starts it).
 */
const ENTRIES = [
  { in: 'src/main.ts', out: 'main' },
  { in: 'src/cli.ts', out: 'cli' },
  { in: 'src/db/pglite-worker.ts', out: 'pglite-worker' },
  // sandbank/testing: startSandbank and sandbankMerchant for a developer's own test suite
  // (dist/testing.d.ts: its types), and the test runners' global setups of its shared server.
  { in: 'src/testing.ts', out: 'testing' },
  ...DECLARED.filter((name) => name !== 'testing').map((name) => ({ in: `src/${name}.ts`, out: name })),
];

/** Packages loaded from node_modules at run time: they read files next to their own code. */
const EXTERNAL = [
  '@electric-sql/pglite',
  '@graphql-yoga/render-graphiql',
  'swagger-ui-dist',
  'graphql-ws',
  'bufferutil',
  'utf-8-validate',
];

/** A module's GraphQL file: `<module>.graphql.ts`, or a part of it (`<module>.graphql-<part>.ts`). */
const GRAPHQL_FILE = /\.graphql(-[a-z-]+)?\.ts$/;

/**
 * GraphQL in one chunk. Each module's manifest loads its GraphQL lazily (`graphql: () =>
 * import('./<module>.graphql.ts')`, src/modules/module.ts), so that a start never loads it; bundled
 * as written, those twenty lazy entries would split the code they share with the server into
 * dozens of small chunks that every start then reads. Here each such import resolves to one module
 * that imports every module's GraphQL files: the first call loads them all (in one chunk, with the
 * schema), the others find them loaded.
 */
const oneGraphqlChunk = {
  name: 'one-graphql-chunk',
  setup(build) {
    build.onResolve({ filter: GRAPHQL_FILE }, (args) =>
      args.kind === 'dynamic-import' && /[\\/]src[\\/]modules[\\/][^\\/]+[\\/]index\.ts$/.test(args.importer)
        ? { path: 'module-graphql', namespace: 'sandbank' }
        : undefined,
    );
    build.onLoad({ filter: /^module-graphql$/, namespace: 'sandbank' }, () => {
      const modules = join(root, 'src', 'modules');
      const files = readdirSync(modules, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) =>
          readdirSync(join(modules, entry.name))
            .filter((name) => GRAPHQL_FILE.test(name))
            .map((name) => join(modules, entry.name, name)),
        );
      return {
        contents: files.map((file) => `import ${JSON.stringify(file)};`).join('\n'),
        resolveDir: root,
      };
    });
  },
};

async function bundle() {
  const { build } = await import('esbuild');
  rmSync(dist, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: ENTRIES.filter((entry) => existsSync(join(root, entry.in))),
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    plugins: [oneGraphqlChunk],
    // CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __sandbankRequire } from 'node:module'; const require = __sandbankRequire(import.meta.url);",
    },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/**
 * dist/testing.d.ts, the types of `sandbank/testing`: src/testing.ts's public types are written out
 * in it (no import of the server's own types), so its declarations are emitted from that one file.
 * The same for each other module of DECLARED (the global setups: a function each, no types of their own).
 */
async function declarations() {
  let ts;
  try {
    ts = (await import('typescript')).default;
  } catch {
    process.stdout.write(
      'sandbank: dist/testing.d.ts left out (typescript is not installed: a production install).\n',
    );
    return;
  }
  for (const name of DECLARED) {
    const source = readFileSync(join(root, 'src', `${name}.ts`), 'utf8');
    const emitted = ts.transpileDeclaration(source, {
      fileName: `${name}.ts`,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2023, strict: true },
    });
    const problems = (emitted.diagnostics ?? []).map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, ' '),
    );
    // An export … from another module is an import too: the declarations must stand alone.
    if (/^\s*(import\b|export\s+(type\s+)?(\*|\{[^}]*\})[^;'"]*\bfrom\s*['"])/m.test(emitted.outputText))
      problems.push(`the declarations import other modules: keep the public types in src/${name}.ts`);
    if (problems.length > 0) throw new Error(`dist/${name}.d.ts: ${problems.join('; ')}`);
    writeFileSync(join(dist, `${name}.d.ts`), emitted.outputText);
  }
}

/** The folders below `dir`, relative to it, parents first. */
function foldersOf(dir, prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => (prefix ? `${prefix}/${entry.name}` : entry.name))
    .sort()
    .flatMap((folder) => [folder, ...foldersOf(dir, folder)]);
}

async function snapshot() {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const dir = join(dist, 'pglite', 'data');
  rmSync(join(dist, 'pglite'), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const client = await PGlite.create({ dataDir: dir });
  await migrate(drizzle({ client }), { migrationsFolder: join(root, 'migrations') });
  // The server only ever uses the database "postgres": the two template databases are a third of
  // the folder's files and bytes, all copied or unpacked at every fresh start (measured: loading the
  // tar for --memory takes ~170 ms less without them). Nothing here creates databases.
  await client.exec(
    `UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`,
  );
  await client.exec('DROP DATABASE template0');
  await client.exec('DROP DATABASE template1');
  await client.exec('CHECKPOINT');
  const tar = await client.dumpDataDir('none');
  writeFileSync(join(dist, 'pglite', 'data.tar'), Buffer.from(await tar.arrayBuffer()));
  await client.close();
  // Every folder of the snapshot, empty ones included: npm does not pack empty folders, and
  // Postgres will not start without them (pg_notify, pg_tblspc…), so a copy made from the installed
  // package recreates them from this list.
  writeFileSync(join(dist, 'pglite', 'folders.json'), `${JSON.stringify(foldersOf(dir))}\n`);
  // The migrations the snapshot holds: it is used only while they are a prefix of the code's own.
  const journal = JSON.parse(readFileSync(join(root, 'migrations', 'meta', '_journal.json'), 'utf8'));
  writeFileSync(
    join(dist, 'pglite', 'migrations.json'),
    `${JSON.stringify(journal.entries.map((entry) => entry.tag))}\n`,
  );
}

async function main() {
  try {
    await import('esbuild');
  } catch {
    if (ifPossible) {
      process.stdout.write('sandbank: build skipped (esbuild is not installed: a production install).\n');
      return;
    }
    throw new Error('esbuild is missing: run npm install first.');
  }
  if (ifStale) {
    const { buildAge } = await import('./ensure-build.mjs');
    const { built, sources } = buildAge();
    if (built >= sources) {
      process.stdout.write(
        'sandbank: dist/ is up to date (built after its sources changed); not built again.\n',
      );
      return;
    }
  }
  const started = Date.now();
  await bundle();
  await declarations();
  await snapshot();
  writeFileSync(join(dist, 'BUILT'), `${new Date().toISOString()}\n`);
  process.stdout.write(`sandbank: built dist/ in ${Date.now() - started} ms\n`);
}

main().catch((error) => {
  process.stderr.write(`sandbank: build failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
