/**
 * `sandbank/testing/jest-teardown`: Jest's globalTeardown beside `sandbank/testing/jest-setup`
 * (Jest runs both in its main process): stops the server the setup started.
 */
import { sandbankGlobalTeardown } from './testing.ts';

export default function teardown(): Promise<void> {
  return sandbankGlobalTeardown();
}
