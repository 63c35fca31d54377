import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One Sandbank for the whole run (in memory, on a free port), stopped at its end; each test file
    // signs up a merchant of its own on it with sandbankMerchant().
    globalSetup: ['sandbank/testing/vitest-setup'],
  },
});
