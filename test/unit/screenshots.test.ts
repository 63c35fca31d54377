import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The screenshots the README and the guides show are the browser tests' own (test/browser/chromium.ts
 * copies them with SANDBANK_UPDATE_SCREENSHOTS=1): each published file is one a browser test still
 * takes, and each one shown exists.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const PUBLISHED = join(ROOT, 'docs', 'guide', 'screenshots');

const taken = new Set(
  readdirSync(join(ROOT, 'test', 'browser'))
    .filter((file) => file.endsWith('.test.ts'))
    .flatMap((file) =>
      [
        ...readFileSync(join(ROOT, 'test', 'browser', file), 'utf8').matchAll(
          /screenshot\(\w+, '([\w-]+)'\)/g,
        ),
      ].map((match) => match[1]),
    ),
);

describe('published screenshots', () => {
  it('are each one a browser test takes', () => {
    const published = readdirSync(PUBLISHED).filter((file) => file.endsWith('.png'));
    expect(published.length).toBeGreaterThan(0);
    expect(published.filter((file) => !taken.has(file.replace(/\.png$/, '')))).toEqual([]);
  });

  it('are shown by the README or a guide, and what they show exists', () => {
    const documents = [
      ['README.md', readFileSync(join(ROOT, 'README.md'), 'utf8')],
      ...readdirSync(join(ROOT, 'docs', 'guide'))
        .filter((file) => file.endsWith('.md'))
        .map((file) => [`docs/guide/${file}`, readFileSync(join(ROOT, 'docs', 'guide', file), 'utf8')]),
    ] as const;
    const shown = documents.flatMap(([, text]) =>
      [...text.matchAll(/\((?:docs\/guide\/)?screenshots\/([\w-]+\.png)\)/g)].map((match) => match[1]),
    );
    const published = readdirSync(PUBLISHED);
    expect(shown.filter((file) => !published.includes(file ?? ''))).toEqual([]);
    expect(published.filter((file) => !shown.includes(file))).toEqual([]);
  });
});
