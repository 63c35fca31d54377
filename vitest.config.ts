import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Browser tests drive Debian's Chromium and never download a browser. On a machine without it
 * (a newcomer's laptop with only Node and npm) they are left out with a notice; in CI (CI=true) or
 * with SANDBANK_REQUIRE_BROWSER=1 they always run, and fail with instructions if it is missing.
 */
const browserRequired = process.env.CI === 'true' || process.env.SANDBANK_REQUIRE_BROWSER === '1';
const runBrowserTests = browserRequired || existsSync('/usr/bin/chromium');
if (!runBrowserTests) {
  console.warn(
    'Browser tests left out: /usr/bin/chromium is missing (apt-get install -y chromium to run them; CI always does).',
  );
}

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
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      // Built and run on podman by `npm run test:container` (vitest.container.config.ts).
      'test/container/**',
      ...(runBrowserTests ? [] : ['test/**/*.browser.test.ts']),
    ],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/register-modules.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
