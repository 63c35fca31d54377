/**
 * The server's entry point (`npm start`). It names the storage at once, before loading the rest of
 * the server (most of the start-up's JavaScript), so a start never begins in silence.
 */
import { chooseDatabase, storageLabel } from './storage.ts';

function fail(error: unknown): never {
  process.stderr.write(`sandbank: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const present = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
process.stdout.write(
  `Sandbank: starting on ${storageLabel(chooseDatabase(present, process.argv.slice(2)))}…\n`,
);
import('./start.ts').then(({ start }) => start()).catch(fail);
