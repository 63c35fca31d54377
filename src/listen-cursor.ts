import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ListenError } from './listen-options.ts';

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
