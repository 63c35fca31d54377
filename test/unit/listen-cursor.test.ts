import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTime } from 'ulid';
import { afterAll, describe, expect, it } from 'vitest';
import { cursorId, OVERLAP_MS, readCursor, SavedCursor } from '../../src/listen-cursor.ts';
import { parseSince } from '../../src/listen-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbank-cursor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'sk_test_cursorunit0000wxyz';
const API = 'http://127.0.0.1:4242';
const TO = 'http://127.0.0.1:3000/hooks';
/** An event id made at `ms` (the random part fixed). */
const idAt = (ms: number, tail = 'A') => `evt_${encodeTime(ms, 10)}${tail.repeat(16)}`;
const noCheck = async () => undefined;

describe("listen's saved cursor", () => {
  it('starts live at the newest event, then keeps the handled ids within the overlap above a trailing floor', async () => {
    const file = join(dir, 'a.json');
    const warnings: string[] = [];
    const cursor = new SavedCursor(file, API, { key: KEY, forwardTo: TO }, (l) => warnings.push(l));
    const t0 = 1_800_000_000_000;
    const start = await cursor.start({}, idAt(t0), noCheck);
    expect(start).toMatchObject({ after: idAt(t0), handled: [], label: null });
    cursor.handled(idAt(t0 + 1000), true);
    cursor.handled(idAt(t0 + 2000, 'B'), false);
    cursor.handled(idAt(t0 + OVERLAP_MS + 5000), true);
    const saved = readCursor(file, cursorId(API, KEY, TO));
    // The floor trails the newest handled by the overlap: the first is below it, the dropped one too.
    expect(saved?.after).toBe(`evt_${encodeTime(t0 + 5000, 10)}`);
    expect(saved?.handled).toEqual([idAt(t0 + OVERLAP_MS + 5000)]);
    expect(saved?.last_delivered).toBe(idAt(t0 + OVERLAP_MS + 5000));
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    expect(warnings).toEqual([]);
    // A second run resumes from it; another forward URL has its own (no) entry.
    const again = await new SavedCursor(file, API, { key: KEY, forwardTo: TO }, () => {}).start(
      {},
      idAt(t0 + 99_000),
      noCheck,
    );
    expect(again).toMatchObject({ after: saved?.after, handled: saved?.handled });
    expect(again.label).toContain(`the cursor saved in ${file}`);
    const other = await new SavedCursor(file, API, { key: KEY, forwardTo: `${TO}2` }, () => {}).start(
      {},
      idAt(t0 + 99_000),
      noCheck,
    );
    expect(other.label).toBeNull();
    // --no-resume: live, and saved from there.
    const live = await new SavedCursor(file, API, { key: KEY, forwardTo: TO }, () => {}).start(
      { resume: false },
      idAt(t0 + 99_000),
      noCheck,
    );
    expect(live).toMatchObject({ after: idAt(t0 + 99_000), label: null });
    expect(readCursor(file, cursorId(API, KEY, TO))?.after).toBe(idAt(t0 + 99_000));
  });

  it('reads --since as an event id or a zoned ISO time, and refuses the rest', () => {
    expect(parseSince('evt_01M8HBSY6FFH8NCDFGFTT2QWBK')).toEqual({ id: 'evt_01M8HBSY6FFH8NCDFGFTT2QWBK' });
    expect(parseSince('2026-11-28T15:00:00Z')).toEqual({ time: Date.UTC(2026, 10, 28, 15) });
    expect(parseSince('2026-11-28T16:00:00.000+01:00')).toEqual({ time: Date.UTC(2026, 10, 28, 15) });
    expect(parseSince('2026-11-28')).toEqual({ time: Date.UTC(2026, 10, 28) });
    for (const bad of ['2026-11-28T15:00', 'yesterday', 'evt_short', '2026-13-45T00:00:00Z', ''])
      expect(() => parseSince(bad), bad).toThrow(/--since must be an event id/);
  });

  it('refuses a file that is not a cursor file, and leaves it as it is', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '[1, 2]');
    const cursor = new SavedCursor(file, API, { key: KEY, forwardTo: TO }, () => {});
    await expect(cursor.start({}, '', noCheck)).rejects.toThrow(/is not a listen cursor file: remove it/);
    expect(readFileSync(file, 'utf8')).toBe('[1, 2]');
  });
});
