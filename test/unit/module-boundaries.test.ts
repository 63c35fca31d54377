import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Module boundaries beyond the layers (test/unit/architecture.test.ts): a module writes only its own
 * tables — another module's rows change through that module's functions — and no file grows past
 * what a reader takes in at once. Each exception is named here with its reason.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The writes (`insert`, `update`, `delete`, also through `change()`) of another module's tables in `text`. */
function foreignWrites(module: string, text: string): string[] {
  const found: string[] = [];
  const imports =
    /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'\.\.\/([a-z-]+)\/[a-z-]+\.table(?:-[a-z-]+)?\.ts'/g;
  for (const [, names = '', owner] of text.matchAll(imports)) {
    if (owner === module) continue;
    for (const name of names.split(',').map((part) => part.trim().replace(/^type\s+/, ''))) {
      if (!name) continue;
      if (new RegExp(`\\.(insert|update|delete)\\(\\s*${name}\\b`).test(text)) found.push(`${owner}.${name}`);
    }
  }
  return found;
}

/** Files that write another module's tables, and why that is their job. */
const WRITES_ALLOWED: Record<string, string> = {
  'src/modules/sandbox/sandbox.reset.ts':
    "a sandbox reset deletes every module's rows of the merchant, and puts its clock back, in one transaction",
};

/** The most lines a file under src/ has. */
const MAX_LINES = 300;

/**
 * The allowlist: files over MAX_LINES, each with its length now and why it is allowed. A file here
 * may shrink, never grow, and leaves the list once it is split; the list only ever gets shorter and
 * is meant to end at no more than five files, each with a reason of its own.
 */
const OVERSIZED: Record<string, { lines: number; reason: string }> = {
  'src/db/pglite-proxy.ts': {
    lines: 500,
    reason:
      "a wire protocol: one client speaking to PGlite's worker thread (queueing, transactions, the blocking wait, errors and notifications rebuilt); its parts share one state and read best together",
  },
};

describe('module boundaries', () => {
  it(`no file under src/ grows past ${MAX_LINES} lines (the oversized ones may only shrink)`, () => {
    const offenders: string[] = [];
    for (const path of filesUnder(SRC)) {
      const rel = relative(ROOT, path).replaceAll('\\', '/');
      const lines = readFileSync(path, 'utf8').split('\n').length - 1;
      const limit = OVERSIZED[rel]?.lines ?? MAX_LINES;
      if (lines > limit) offenders.push(`${rel}: ${lines} lines (at most ${limit})`);
    }
    expect(offenders).toEqual([]);
  });

  it('the oversized list names only files that are still over the limit', () => {
    const stale = Object.keys(OVERSIZED).filter((rel) => {
      const lines = readFileSync(join(ROOT, rel), 'utf8').split('\n').length - 1;
      return lines <= MAX_LINES;
    });
    expect(stale).toEqual([]);
  });

  it('no module writes another module’s table (outside the named exceptions)', () => {
    const offenders: string[] = [];
    for (const path of filesUnder(join(SRC, 'modules'))) {
      const rel = relative(ROOT, path).replaceAll('\\', '/');
      const module = rel.split('/')[2] ?? '';
      const writes = foreignWrites(module, readFileSync(path, 'utf8'));
      if (writes.length > 0 && !(rel in WRITES_ALLOWED)) offenders.push(`${rel} writes ${writes.join(', ')}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the check finds a write of another module’s table, and ignores its own', () => {
    const text = [
      "import { cardPayments } from '../card-payments/card-payments.table.ts';",
      "import { disputes } from './disputes.table.ts';",
      'await tx.update(cardPayments).set({ disputed: true });',
      'await tx.insert(disputes).values(row);',
    ].join('\n');
    expect(foreignWrites('disputes', text)).toEqual(['card-payments.cardPayments']);
    expect(foreignWrites('card-payments', text)).toEqual([]);
  });
});
