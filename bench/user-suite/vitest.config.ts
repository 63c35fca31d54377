import { defineConfig } from 'vitest/config';

/** The realistic user suite of bench/testing-api.bench.ts: one server for the run, a merchant per file. */
export default defineConfig({
  test: {
    include: ['files/*.test.ts'],
    globalSetup: ['./global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
