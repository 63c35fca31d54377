import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The test tiers, each a vitest project runnable alone (`npx vitest run --project <name>`); the
 * npm scripts pick them (docs/internals/testing.md):
 *
 * - unit: pure logic (kernel, state machines, money, calendar, schemas), no database: seconds.
 * - api: the in-process server on one database (PGlite, or TEST_DATABASE_URL's Postgres).
 * - browser: Debian's Chromium driving the pages.
 * - processes: the server, the CLI and the packed package as separate processes.
 * - outside: third-party validators, clients and runners, installed on demand in test/outside.
 * - container: the image and the scaled-out stack on podman.
 *
 * The browser and container tiers need a tool npm cannot install (Chromium, podman). Where it is
 * missing the tier has no files (a notice says why); in CI (CI=true), or with SANDBANK_REQUIRE_BROWSER=1 /
 * SANDBANK_REQUIRE_CONTAINERS=1, they always run and fail with instructions.
 */
const ci = process.env.CI === 'true';
const browserRequired = ci || process.env.SANDBANK_REQUIRE_BROWSER === '1';
const runBrowserTests = browserRequired || existsSync('/usr/bin/chromium');
const containersRequired = ci || process.env.SANDBANK_REQUIRE_CONTAINERS === '1';
const runContainerTests =
  containersRequired || spawnSync('sh', ['-c', 'command -v podman'], { stdio: 'ignore' }).status === 0;

const named = (name: string) =>
  process.argv.some(
    (arg, i) => arg === `--project=${name}` || (arg === '--project' && process.argv[i + 1] === name),
  );
if (!runBrowserTests && named('browser'))
  console.warn(
    'Browser tests left out: /usr/bin/chromium is missing (apt-get install -y chromium to run them; CI always does).',
  );
if (!runContainerTests && named('container'))
  console.warn(
    'Container tests left out: podman is missing (apt-get install -y podman runc debootstrap podman-compose; CI always runs them).',
  );

/**
 * The unit and api tiers run their files one after another in each worker without importing the
 * application again for each file (`isolate: false`): that import was most of a short file's time.
 * Every file still builds its own app on its own database, so what files share is only module-level
 * code and caches that hold nothing of a merchant (docs/internals/testing.md).
 */

/**
 * The database-backed tiers share one migrated PGlite snapshot (and a reset Postgres) per run.
 * Their timeouts only catch a test that hangs: they are not timing targets (those live in
 * `npm run bench`), so they leave a busy machine room — a test that takes 20 s on a loaded 2-core
 * machine must not fail for it.
 */
const withDatabase = {
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports" map: Node loads index.js while Vite would pick index.mjs, and two
    // copies of graphql cannot share a schema. Point Vite at the same file Node uses.
    // sandbank/testing (examples/testing): the sources, so that the examples need no build.
    alias: [
      { find: /^graphql$/, replacement: 'graphql/index.js' },
      {
        find: /^sandbank\/testing$/,
        replacement: fileURLToPath(new URL('./src/testing.ts', import.meta.url)),
      },
    ],
  },
  test: {
    exclude: [...configDefaults.exclude],
    // A tier left out for a missing tool has no files; the others still run.
    passWithNoTests: true,
    setupFiles: ['test/support/register-modules.ts', 'test/support/per-test-checks.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          // Some unit tests read the whole source tree (architecture, module boundaries) and take
          // over a second alone; beside the api tier's workers on two cores they take several times
          // that, past vitest's default 5 s. A hang is still caught.
          testTimeout: 30_000,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'api', include: ['test/api/**/*.test.ts'], ...withDatabase, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: runBrowserTests ? ['test/browser/**/*.test.ts'] : [],
          ...withDatabase,
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: ['test/processes/**/*.test.ts', 'examples/**/*.test.ts'],
          ...withDatabase,
          // The vitest example's (examples/testing/vitest): one Sandbank for the run, its url in
          // SANDBANK_URL, where the example's files sign up their merchants.
          globalSetup: [...withDatabase.globalSetup, 'src/testing-vitest-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'outside',
          include: ['test/outside/**/*.test.ts'],
          globalSetup: ['test/outside/global-setup.ts', ...withDatabase.globalSetup],
          testTimeout: withDatabase.testTimeout,
          hookTimeout: withDatabase.hookTimeout,
        },
      },
      {
        extends: true,
        test: {
          name: 'container',
          include: runContainerTests ? ['test/container/**/*.test.ts'] : [],
          globalSetup: ['test/container/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // One file at a time: they share the machine's cores with the containers they start.
          fileParallelism: false,
        },
      },
    ],
  },
});
