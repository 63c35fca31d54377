import { defineConfig } from 'vitest/config';

/**
 * The container tests (`npm run test:container`, a step of .ci/run of its own): the image built
 * from the Containerfile and the scaled-out stack, on podman. One file at a time: they share the
 * machine's two cores with the containers they start.
 */
export default defineConfig({
  // As vitest.config.ts: the one graphql file Node loads.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/container/**/*.test.ts'],
    globalSetup: ['test/container/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
