/**
 * The user suite's global setup: the package's own (one server for the run, its url in
 * SANDBANK_URL), timed; the time is part of the suite's time in Sandbank.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sandbankGlobalSetup } from '../../dist/testing.js';

export default async function setup(): Promise<() => Promise<void>> {
  const started = performance.now();
  const stop = await sandbankGlobalSetup();
  const ms = performance.now() - started;
  writeFileSync(fileURLToPath(new URL('setup.json', import.meta.url)), JSON.stringify({ ms }));
  return stop;
}
