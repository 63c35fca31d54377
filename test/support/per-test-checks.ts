/**
 * Checks run after every test of every file (a setup file: vitest registers its hooks for each test
 * file, also when the files of a worker share their modules). The webhook receivers' contract
 * problems fail the test that met them; those of a receiver a file left running fail its last hook.
 */
import { afterAll, afterEach } from 'vitest';
import { startedReceivers } from './receivers-started.ts';

afterEach(() => {
  for (const receiver of startedReceivers) receiver.assertConforming();
});

afterAll(() => {
  const left = [...startedReceivers];
  startedReceivers.clear();
  for (const receiver of left) receiver.assertConforming();
});
