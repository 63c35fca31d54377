/**
 * `sandbank/testing/vitest-setup`: vitest's globalSetup for the shared-server pattern
 * (docs/guide/testing.md). In vitest.config.ts:
 *
 *   test: { globalSetup: ['sandbank/testing/vitest-setup'] }
 *
 * One Sandbank for the run (PGlite in memory, a free loopback port), its url in SANDBANK_URL, which
 * vitest hands on to its workers; each test file signs up a merchant of its own with
 * sandbankMerchant(). vitest calls the function this resolves with at the end of the run: it stops
 * the server.
 */
import { sandbankGlobalSetup } from './testing.ts';

export default function setup(): Promise<() => Promise<void>> {
  return sandbankGlobalSetup();
}
