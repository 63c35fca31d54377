/**
 * docs/reference/errors.md lists every code of the error registry (src/kernel/errors.ts) with its
 * status, type, whether a retry can succeed and its message, as the code has them: a code added,
 * removed or changed without the document fails here. SANDBANK_WRITE_DOCS=1 rewrites the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_REGISTRY } from '../../src/kernel/errors.ts';
import { tableCells } from '../support/markdown.ts';

const PATH = join(import.meta.dirname, '..', '..', 'docs', 'reference', 'errors.md');
const SECTION = /<!-- errors:start -->\n([\s\S]*)<!-- errors:end -->/;

/** The registry as the document's table. */
function errorsTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = ERROR_CODES.map((code) => {
    const spec: {
      status: number;
      type: string;
      retryable: boolean;
      message: string;
      statuses?: readonly number[];
    } = ERROR_REGISTRY[code];
    const statuses = spec.statuses
      ? [...new Set([spec.status, ...spec.statuses])].join(', ')
      : String(spec.status);
    return `| \`${code}\` | ${statuses} | \`${spec.type}\` | ${spec.retryable ? 'yes' : 'no'} | ${cell(spec.message)} |`;
  });
  return ['| Code | Status | Type | Retry | Message |', '| --- | --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}

const cells = tableCells;

describe('docs/reference/errors.md', () => {
  it('lists every error code as the registry has it', () => {
    const doc = readFileSync(PATH, 'utf8');
    if (process.env.SANDBANK_WRITE_DOCS === '1')
      writeFileSync(
        PATH,
        doc.replace(SECTION, `<!-- errors:start -->\n${errorsTable()}\n<!-- errors:end -->`),
      );
    expect(
      cells(SECTION.exec(doc)?.[1] ?? ''),
      'docs/reference/errors.md drifted: run this test with SANDBANK_WRITE_DOCS=1',
    ).toEqual(cells(errorsTable()));
  });
});
