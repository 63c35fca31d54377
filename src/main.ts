/**
 * The server's entry point (`npm start`, dist/main.js). It names the storage at once, then (on
 * PGlite in its worker thread) starts opening the database (prestart.ts), and only then loads the
 * rest of the server (start.ts, most of the start-up's JavaScript): a start never begins in silence,
 * and opening the database overlaps loading the code instead of following it.
 */
import { setFlagsFromString } from 'node:v8';
import { chooseDatabase, storageLabel } from './storage.ts';

function fail(error: unknown): never {
  process.stderr.write(`sandbank: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

// V8 grows its old generation to a multiple of the live heap after each full collection, and does
// not give it back when a burst of requests ends. A server whose live heap is a few tens of MB
// then idles at twice its resident size after one load test. Growing by a fifth instead keeps the
// resident size after load near idle, at no measured cost in throughput (docs/internals/performance.md).
// A heap-growing setting given to node explicitly wins.
const nodeFlags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
if (!/heap[-_]growing[-_]percent/.test(nodeFlags)) setFlagsFromString('--heap-growing-percent=20');

const present = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
const database = chooseDatabase(present, process.argv.slice(2));
process.stdout.write(`Sandbank: starting on ${storageLabel(database)}…\n`);
import('./prestart.ts')
  .then(({ prestart }) => prestart(database, present))
  .then(() => import('./start.ts'))
  .then(({ start }) => start())
  .catch(fail);
