/**
 * A process whose PGlite worker thread dies under it (test/processes/pglite-worker.test.ts): it opens the
 * database as the server does, stops the thread, and would then wait forever; the default failure
 * handler must end it with code 1 and a line saying why.
 */
import { openDatabase } from '../../src/db/client.ts';
import { PgliteWorkerClient } from '../../src/db/pglite-proxy.ts';

const database = await openDatabase({ driver: 'pglite' });
if (!(database.pglite instanceof PgliteWorkerClient)) throw new Error('PGlite is not in a worker thread');
process.stdout.write('opened in a worker thread\n');
setInterval(() => {}, 1000); // what a server's open socket does: keep the process alive
await database.pglite.worker.terminate();
