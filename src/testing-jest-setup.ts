/**
 * `sandbank/testing/jest-setup`: Jest's globalSetup for the shared-server pattern
 * (docs/guide/testing.md), with `sandbank/testing/jest-teardown` as its globalTeardown:
 *
 *   export default {
 *     globalSetup: 'sandbank/testing/jest-setup',
 *     globalTeardown: 'sandbank/testing/jest-teardown',
 *   };
 *
 * One Sandbank for the run, its url in SANDBANK_URL, which Jest's workers (and a test run in band)
 * inherit; each test file signs up a merchant of its own with sandbankMerchant().
 */
import { sandbankGlobalSetup } from './testing.ts';

export default async function setup(): Promise<void> {
  await sandbankGlobalSetup();
}
