/**
 * Starting PGlite: the data folder's lock, the build's snapshot, and the thread it runs on (a
 * worker by default, see pglite-proxy.ts). The server begins this as the process starts
 * (prestartPglite, from src/prestart.ts), so that PGlite boots on the worker thread while the main
 * thread loads the rest of the server; openDatabase then adopts what was started.
 *
 * Kept apart from client.ts so that the prestart loads only this, the proxy and PGlite.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_MEMORY_SETTINGS, PGLITE_RELAXED_SETTINGS, PGLITE_WAL_SETTINGS } from './maintenance.ts';
import { type PgliteClient, PgliteWorkerClient } from './pglite-proxy.ts';
import { copySnapshot, pgliteSnapshot } from './snapshot.ts';

/** Whether PGlite runs in its worker thread unless told otherwise: PGLITE_WORKER=0 turns it off. */
export function pgliteWorkerByDefault(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.PGLITE_WORKER?.trim().toLowerCase();
  return !(value === '0' || value === 'false' || value === 'off' || value === 'no');
}

export interface PgliteStart {
  dataDir?: string | undefined;
  loadDataDir?: Blob | undefined;
  /** The migrations folder (the build's snapshot is used only if it holds a prefix of them). */
  migrations: string;
  worker: boolean;
  onWorkerFailure?: ((error: Error) => void) | undefined;
  /** SANDBANK_DURABILITY=relaxed: commits answered before they reach the disk. */
  relaxedDurability?: boolean | undefined;
}

export interface StartedPglite {
  client: Promise<PgliteClient>;
  /** Removes the data folder's lock (after close, or when opening failed). */
  release(): void;
  worker: boolean;
}

/**
 * Takes the data folder's lock, copies the snapshot into a fresh folder and starts PGlite, on a
 * worker thread or this one. Throws at once if the folder is locked; `client` rejects (and the
 * lock is released) if PGlite does not open.
 */
export function startPglite(options: PgliteStart): StartedPglite {
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  // The lock stays with this process's main thread, whichever thread runs PGlite.
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  const open = async (): Promise<PgliteClient> => {
    // Start from the build's pre-migrated snapshot where there is one: a fresh folder gets a copy
    // of it (under the lock just taken), and a database in memory loads its tar.
    const snapshot = options.loadDataDir ? null : pgliteSnapshot(options.migrations);
    if (snapshot && dataDir && !existsSync(join(dataDir, 'PG_VERSION'))) copySnapshot(snapshot, dataDir);
    const tarPath = snapshot && !dataDir ? snapshot.tar : undefined;
    const startParams = [
      ...PGLITE_WAL_SETTINGS,
      ...PGLITE_MEMORY_SETTINGS,
      ...(options.relaxedDurability ? PGLITE_RELAXED_SETTINGS : []),
    ];
    const relaxedDurability = options.relaxedDurability ?? false;
    if (options.worker) {
      return PgliteWorkerClient.start(
        {
          ...(dataDir ? { dataDir } : {}),
          ...(options.loadDataDir
            ? { loadDataDir: new Uint8Array(await options.loadDataDir.arrayBuffer()) }
            : {}),
          ...(tarPath ? { loadDataDirPath: tarPath } : {}),
          startParams,
          relaxedDurability,
        },
        options.onWorkerFailure ? { onFailure: options.onWorkerFailure } : {},
      );
    }
    const loadDataDir = tarPath ? new Blob([readFileSync(tarPath)]) : options.loadDataDir;
    return PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(loadDataDir ? { loadDataDir } : {}),
      startParams: [...PGlite.defaultStartParams, ...startParams],
      relaxedDurability,
    });
  };
  const client = open();
  client.catch(() => release());
  return { client, release, worker: options.worker };
}

interface Prestarted {
  dataDir: string | undefined;
  migrations: string;
  relaxedDurability: boolean;
  started?: StartedPglite;
  error?: unknown;
}

let prestarted: Prestarted | undefined;

/**
 * Starts PGlite for the server now, in its worker thread, to be adopted by the first openDatabase
 * of the same folder (undefined: in memory) and migrations. An error (a locked folder) is kept and
 * thrown by that openDatabase, where the server reports it.
 */
export function prestartPglite(
  dataDir: string | undefined,
  migrations: string,
  relaxedDurability = false,
): void {
  if (prestarted) return;
  const entry: Prestarted = {
    dataDir: dataDir ? resolve(dataDir) : undefined,
    migrations,
    relaxedDurability,
  };
  try {
    entry.started = startPglite({ dataDir, migrations, worker: true, relaxedDurability });
    entry.started.client.catch(() => {}); // reported when adopted
    // Not adopted (the server failed before opening its database): leave no lock behind.
    process.once('exit', () => {
      if (prestarted === entry) entry.started?.release();
    });
  } catch (error) {
    entry.error = error;
  }
  prestarted = entry;
}

/** What prestartPglite started for this folder and these migrations, once; else undefined. */
export function adoptPrestarted(options: PgliteStart): StartedPglite | undefined {
  const entry = prestarted;
  if (!entry || options.loadDataDir || !options.worker || options.onWorkerFailure) return undefined;
  if (entry.dataDir !== (options.dataDir ? resolve(options.dataDir) : undefined)) return undefined;
  if (entry.migrations !== options.migrations) return undefined;
  if (entry.relaxedDurability !== (options.relaxedDurability ?? false)) return undefined;
  prestarted = undefined;
  if (entry.error) throw entry.error;
  return entry.started;
}

/**
 * PGlite has no cross-process lock: two processes on one folder lose committed rows. We take an
 * exclusive lock file and refuse to start while another live process holds it.
 */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, 'sandbank.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The data directory ${dir} is in use by process ${holder}. Stop that server first, or start with --memory or another SANDBANK_DATA_DIR.`,
        );
      }
      rmSync(lockPath, { force: true }); // stale lock from a process that died
    }
  }
  throw new Error(`Could not lock the data directory ${dir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
