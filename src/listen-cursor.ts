import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { decodeTime, encodeTime } from 'ulid';
import { describe } from './listen-forward.ts';
import { ListenError, type ListenOptions, parseSince } from './listen-options.ts';

/** How far (by id time) catch-up reads below the newest event it has read: a transaction may commit after a later one. */
export const OVERLAP_MS = 30_000;

/** The smallest id an event made at `ms` (server wall time, the ULID's time part) can have. */
export function idFloorAt(ms: number): string {
  return `evt_${encodeTime(Math.max(0, ms), 10)}`;
}

export function timeOfId(id: string): number | null {
  try {
    return decodeTime(id.slice(id.indexOf('_') + 1));
  } catch {
    return null;
  }
}

/**
 * `sandbank listen`'s saved cursor: where a listener got to in the merchant's event record, kept in
 * a small JSON file so that a restarted listener forwards what happened while it was down (and
 * nothing it had delivered already). One entry per server URL + merchant key + forward URL; the key
 * itself is never written, only a hash of the three.
 *
 * An entry is a floor and the ids above it already handled: every event at or below `after` is
 * done, and so is each id in `handled`. Events commit in about id order but not exactly (a
 * transaction may commit after a later one), so the floor trails the newest handled event by the
 * listener's overlap window, and the handled ids within it are kept: a resumed listener reads the
 * record above the floor and skips those.
 */
export interface CursorEntry {
  api: string;
  forward_to: string;
  /** The merchant key's last 4 characters, to tell entries apart when reading the file. */
  key_last4: string;
  /** Events with an id at or below this one are handled ('' : none yet). */
  after: string;
  /** Ids above `after` already handled (delivered, or reported DROPPED), ascending. */
  handled: string[];
  /** The newest event delivered to the forward URL. */
  last_delivered: string | null;
  updated_at: string;
}

interface CursorFileShape {
  version: 1;
  listeners: Record<string, CursorEntry>;
}

/** Where cursors are kept unless --cursor-file says: the user's state directory (XDG), per user. */
export function defaultCursorFile(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return join(env.LOCALAPPDATA, 'sandbank', 'listen-cursors.json');
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'sandbank', 'listen-cursors.json');
}

/** The entry's name in the file: a hash of what identifies a listener (the key is not stored). */
export function cursorId(api: string, key: string, forwardTo: string): string {
  return createHash('sha256').update(`${api}\n${key}\n${forwardTo}`).digest('hex').slice(0, 32);
}

function readFile(file: string): CursorFileShape {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, listeners: {} };
    throw new ListenError(`Cannot read the cursor file ${file}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as CursorFileShape;
    if (parsed?.version === 1 && typeof parsed.listeners === 'object' && parsed.listeners !== null)
      return parsed;
  } catch {
    // reported below
  }
  throw new ListenError(
    `${file} is not a listen cursor file: remove it, or pass --cursor-file with another path.`,
  );
}

/** The saved entry, or null when this listener has none yet. */
export function readCursor(file: string, id: string): CursorEntry | null {
  const entry = readFile(file).listeners[id];
  if (!entry) return null;
  if (typeof entry.after !== 'string' || !Array.isArray(entry.handled))
    throw new ListenError(
      `The entry for this listener in ${file} is malformed: remove it, or pass --no-resume.`,
    );
  return entry;
}

/** Saves the entry (the file is read again, so other listeners' entries are kept; written whole, then renamed). */
export function saveCursor(file: string, id: string, entry: CursorEntry): void {
  const content = readFile(file);
  content.listeners[id] = entry;
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/** What a listener prints before it forwards the events it missed. */
export function catchUpLine(count: number, label: string): string {
  return count > 0
    ? `Catching up: ${count} event${count === 1 ? '' : 's'} after ${label}`
    : `Catching up: nothing missed after ${label}`;
}

/**
 * Where a listener starts and what it saves as it goes: the floor (ids at or below it are not
 * forwarded), the ids above it already handled, what to call the point when catching up (null:
 * live only), and for --since TIME the time events up to the newest at start are compared with.
 */
export interface StartingPoint {
  after: string;
  handled: string[];
  label: string | null;
  sinceTime: { time: number; upTo: string } | null;
}

/** One listener's entry in the cursor file (none kept when `file` is null). */
export class SavedCursor {
  readonly #file: string | null;
  readonly #id: string;
  readonly #api: string;
  readonly #key: string;
  readonly #forwardTo: string;
  readonly #warn: (line: string) => void;
  #entry: CursorEntry | null = null;
  #failed = false;

  constructor(
    file: string | null,
    api: string,
    listener: Pick<ListenOptions, 'key' | 'forwardTo'>,
    warn: (line: string) => void,
  ) {
    this.#file = file;
    this.#id = cursorId(api, listener.key, listener.forwardTo);
    this.#api = api;
    this.#key = listener.key;
    this.#forwardTo = listener.forwardTo;
    this.#warn = warn;
  }

  /**
   * After --since when given (`checkEvent` confirms an id names an event of the key's); else after
   * the saved entry unless `resume` is false; else at `newestId`, saved as where this run began.
   */
  async start(
    options: Pick<ListenOptions, 'since' | 'resume'>,
    newestId: string,
    checkEvent: (id: string) => Promise<unknown>,
  ): Promise<StartingPoint> {
    const saved =
      this.#file && options.resume !== false && options.since === undefined
        ? readCursor(this.#file, this.#id)
        : null;
    const entry = (after: string): CursorEntry => ({
      api: this.#api,
      forward_to: this.#forwardTo,
      key_last4: this.#key.slice(-4),
      after,
      handled: [],
      last_delivered: null,
      updated_at: new Date().toISOString(),
    });
    const none = { handled: [], sinceTime: null };
    if (options.since !== undefined) {
      const since = parseSince(options.since);
      if ('id' in since) {
        await checkEvent(since.id).catch((error: unknown) => {
          if (error instanceof ListenError) throw error;
          throw new ListenError(`--since ${since.id}: ${describe(error)}`);
        });
        this.#entry = entry(since.id);
        this.#save();
        return { ...none, after: since.id, label: since.id };
      }
      this.#entry = entry('');
      const label = `${new Date(since.time).toISOString()} (created_at)`;
      return { ...none, after: '', label, sinceTime: { time: since.time, upTo: newestId } };
    }
    if (saved) {
      this.#entry = { ...saved, handled: [...saved.handled] };
      const point = saved.last_delivered ?? (saved.after || 'the start of the record');
      const label = `${point}, the cursor saved in ${this.#file}`;
      return { ...none, after: saved.after, handled: [...saved.handled], label };
    }
    this.#entry = entry(newestId);
    this.#save();
    return { ...none, after: newestId, label: null };
  }

  /** Records an event as handled (delivered, or dropped): the floor follows the newest handled, OVERLAP_MS behind. */
  handled(id: string, delivered: boolean): void {
    const cursor = this.#entry;
    if (!cursor) return;
    const handled = new Set(cursor.handled);
    handled.add(id);
    if (delivered && (!cursor.last_delivered || id > cursor.last_delivered)) cursor.last_delivered = id;
    const newestTime = timeOfId([...handled].sort().at(-1) ?? id);
    if (newestTime !== null) {
      const floor = idFloorAt(newestTime - OVERLAP_MS);
      if (floor > cursor.after) cursor.after = floor;
    }
    cursor.handled = [...handled].filter((h) => h > cursor.after).sort();
    cursor.updated_at = new Date().toISOString();
    this.#save();
  }

  #save(): void {
    if (!this.#file || !this.#entry) return;
    try {
      saveCursor(this.#file, this.#id, this.#entry);
      this.#failed = false;
    } catch (error) {
      if (!this.#failed)
        this.#warn(
          `Cannot save the cursor in ${this.#file} (${describe(error)}): a restart may forward events again or miss some`,
        );
      this.#failed = true;
    }
  }
}
