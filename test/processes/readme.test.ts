/**
 * The README and the users' guides (docs/guide/*.md), executed. Every command of every ```sh block
 * runs with bash against a real server started for this file (startSandbank: PGlite in memory, or
 * TEST_DATABASE_URL's Postgres), and every answer a document shows as a comment after a command is
 * checked against what the command printed. A command that cannot run here (it installs, starts a
 * server on port 4242, runs the suite itself…) must be listed in NOT_RUN_HERE with the test or CI
 * step that runs it; any other command a document gains is executed, and fails this file if it
 * does not do what it shows. docs/internals/readme-tests.md describes the format.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbank, startSandbank } from '../../src/testing.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Every Markdown file under a folder of the clone, as paths relative to the clone, sorted. */
function markdownUnder(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return name.endsWith('.md') ? [relative(ROOT, path)] : [];
    });
  return walk(join(ROOT, folder)).sort();
}

/** The documents whose sh blocks this file executes: the README, then every users' guide. */
const EXECUTED = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs', 'guide'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/guide/${name}`),
];

/**
 * Commands of the README and the guides that this file does not run, each with what runs it instead. The keys are
 * the commands as written (continuation lines joined, spaces collapsed, trailing comment dropped).
 */
const NOT_RUN_HERE: Record<string, string> = {
  'npm install && npm start':
    '.ci/run installs with npm ci; test/processes/startup.test.ts starts the server as npm start does',
  'npm test': '.ci/run runs npm test, on PGlite and on Postgres',
  'npm pack': 'test/outside/testing-api.test.ts packs the package',
  'NODE_OPTIONS=--experimental-vm-modules npx jest':
    'test/outside/testing-api.test.ts runs the Jest example in an empty project with NODE_OPTIONS=--experimental-vm-modules npx jest',
  'npx sandbank test -- node --test':
    'test/outside/testing-api.test.ts runs the node:test example in an empty project with npx sandbank test -- node --test',
  'npx sandbank':
    'test/browser/packed-checkout.test.ts starts the packed package with npx sandbank (--memory); test/processes/startup.test.ts keeps the data of a server across restarts, which bin/sandbank.js starts as npm start does',
  'npx sandbank --memory --port 4300':
    'test/browser/packed-checkout.test.ts starts the packed package with npx sandbank --memory --port N and pays a checkout on it',
  'npm install --save-dev /path/to/sandbank-0.1.0.tgz':
    'test/outside/testing-api.test.ts installs the packed package in an empty folder and runs an example there',
  'export BASE=http://localhost:4242': 'this file exports BASE: the url of the server it started',
  'export SK=sk_test_...': "this file exports SK: the secret key of each section's own merchant",
  'export PK=pk_test_...': "this file exports PK: the public key of each section's own merchant",
  "npx sandbank listen --api $BASE --key $SK --forward-to http://localhost:3000/webhooks --events 'collection.*'":
    'test/processes/listen.test.ts runs sandbank listen against a real server and a loopback receiver',
  'npx sandbank check-webhooks http://localhost:3000/webhooks --secret whsec_... --api $BASE --key $SK':
    'test/processes/check-webhooks-cli.test.ts runs sandbank check-webhooks against the sample handlers; docs/guide/webhook-conformance.md runs it too',
  'SANDBANK_SECRET_KEY=sk_test_ci_0123456789 SANDBANK_PUBLIC_KEY=pk_test_ci_0123456789 npm start -- --memory &':
    'test/processes/startup.test.ts starts the server with a pinned SANDBANK_SECRET_KEY, and with --memory',
  'until curl -sf http://localhost:4242/readyz > /dev/null; do sleep 0.2; done':
    'test/processes/startup.test.ts waits for /readyz of each server it starts (test/processes/server-process.ts)',
};

/**
 * README sections (## or ### headings) whose sh blocks this file does not execute yet. Must be
 * empty for the README to count as fully tested.
 */
const SECTIONS_NOT_EXECUTED: string[] = [];

/** One expected answer: the text after `# ` (joined continuation lines). */
interface Expectation {
  text: string;
  line: number;
}

interface Step {
  command: string;
  /** The command as NOT_RUN_HERE names it. */
  key: string;
  line: number;
  expectations: Expectation[];
}

interface Section {
  /** The document, relative to the clone (README.md, docs/guide/…). */
  file: string;
  title: string;
  line: number;
  steps: Step[];
}

/** Where the unquoted part of a line starts a comment, or -1; `state` carries quotes across lines. */
function scan(line: string, state: { quote: '' | "'" | '"' }): number {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (state.quote === "'") {
      if (c === "'") state.quote = '';
    } else if (state.quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') state.quote = '';
    } else if (c === '\\') i++;
    else if (c === "'" || c === '"') state.quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return i;
  }
  return -1;
}

const EXPECTATION_START = /^(\{|\[|→)/;

/** Splits a document into its sections (## and ### headings) and their sh commands. */
function parseReadme(text: string, file = 'README.md'): Section[] {
  const lines = text.split('\n');
  const sections: Section[] = [];
  let section: Section | null = null;
  let inSh = false;
  let fence = false;
  let pending: { lines: string[]; line: number; state: { quote: '' | "'" | '"' } } | null = null;
  let last: Step | null = null;
  let current: Expectation | null = null;
  const finish = (lineNo: number) => {
    if (!pending) return;
    if (!section) throw new Error(`${file} line ${lineNo}: a sh block before any section heading`);
    const command = pending.lines.join('\n');
    const key = pending.lines
      .map((l) => l.replace(/\\$/, ''))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    last = { command, key, line: pending.line, expectations: [] };
    section.steps.push(last);
    pending = null;
  };
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    if (!inSh) {
      if (/^```/.test(raw)) {
        if (raw.trim() === '```sh') inSh = true;
        else fence = !fence;
        return;
      }
      const heading = /^(##|###) (.+)$/.exec(raw);
      if (heading && !fence) {
        section = { file, title: heading[2] ?? '', line: lineNo, steps: [] };
        sections.push(section);
      }
      return;
    }
    if (raw.trim() === '```') {
      if (pending) throw new Error(`${file} line ${pending.line}: a command not finished at the block's end`);
      inSh = false;
      last = null;
      current = null;
      return;
    }
    if (pending) {
      const at = scan(raw, pending.state);
      const code = at >= 0 ? raw.slice(0, at) : raw;
      pending.lines.push(code.replace(/\s+$/, ''));
      const trailing = at >= 0 ? raw.slice(at + 1).trim() : '';
      if (!pending.state.quote && !/\\\s*$/.test(code)) {
        finish(lineNo);
        if (trailing && EXPECTATION_START.test(trailing) && last) {
          current = { text: trailing, line: lineNo };
          (last as Step).expectations.push(current);
        } else current = null;
      }
      return;
    }
    const trimmed = raw.trim();
    if (trimmed === '') {
      last = null;
      current = null;
      return;
    }
    if (trimmed.startsWith('#')) {
      const body = trimmed.replace(/^#\s?/, '');
      if (last && EXPECTATION_START.test(body)) {
        current = { text: body, line: lineNo };
        (last as Step).expectations.push(current);
      } else if (current && /^#\s{2,}/.test(trimmed)) {
        current.text += ` ${body.trim()}`;
      } else {
        last = null;
        current = null;
      }
      return;
    }
    const state = { quote: '' as '' | "'" | '"' };
    const at = scan(raw, state);
    const code = (at >= 0 ? raw.slice(0, at) : raw).replace(/\s+$/, '');
    pending = { lines: [code], line: lineNo, state };
    current = null;
    if (!state.quote && !/\\$/.test(code)) {
      finish(lineNo);
      const trailing = at >= 0 ? raw.slice(at + 1).trim() : '';
      if (trailing && EXPECTATION_START.test(trailing) && last) {
        current = { text: trailing, line: lineNo };
        (last as Step).expectations.push(current);
      }
    }
  });
  if (inSh) throw new Error(`${file}: a sh block is not closed`);
  return sections.filter((s) => s.steps.length > 0);
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A piece of expected text as a pattern: `…` stands for anything (within one JSON string). */
const pattern = (s: string, inString: boolean) =>
  s
    .split('…')
    .map(escapeRegex)
    .join(inString ? '[^"]*' : '[\\s\\S]*?');

/**
 * Checks one expectation against a command's output; returns what did not match (empty: it
 * matched). A JSON expectation (`{…}`, `[…]`) is read as its `"key":value` pairs: each scalar pair
 * must occur in the output (a value's `…` matching any text inside the string), and each key shown
 * with an object or list value must occur with one. Pair order and everything elided is free. A `→
 * text` expectation must occur as text (`…` anything).
 */
function mismatches(expectation: string, output: string): string[] {
  const failures: string[] = [];
  let text = expectation.trim();
  if (text.startsWith('→')) {
    text = text.slice(1).trim();
    if (!/"[^"]+":/.test(text)) {
      if (!new RegExp(pattern(text, false)).test(output)) failures.push(`text ${text}`);
      return failures;
    }
  }
  const scalar = /"([^"\\]+)":\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g;
  let count = 0;
  for (const match of text.matchAll(scalar)) {
    count++;
    const [pair, key, value] = match as unknown as [string, string, string];
    const valuePattern = value.startsWith('"')
      ? `"${pattern(value.slice(1, -1), true)}"`
      : `${escapeRegex(value)}(?![\\d.])`;
    if (!new RegExp(`"${escapeRegex(key)}":\\s*${valuePattern}`).test(output)) failures.push(pair);
  }
  for (const match of text.matchAll(/"([^"\\]+)":\s*([[{])/g)) {
    count++;
    const [, key, open] = match as unknown as [string, string, string];
    if (!new RegExp(`"${escapeRegex(key)}":\\s*\\${open}`).test(output)) failures.push(`"${key}":${open}…`);
  }
  if (count === 0) failures.push(`nothing checkable in the expectation ${expectation}`);
  return failures;
}

interface StepResult {
  step: Step;
  output: string;
  code: number | null;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

/**
 * Runs a section's commands, in order, in one bash (so variables carry from command to command),
 * each command's stdout and stderr captured on their own; stops at the first that exits non-zero.
 * The README's stand-in receiver on port 3000 gets a free port instead.
 */
async function runSection(
  section: Section,
  env: Record<string, string>,
): Promise<{ results: StepResult[]; skipped: Step[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbank-readme-'));
  const receiverPort = String(await freePort());
  const run = section.steps.filter((step) => !(step.key in NOT_RUN_HERE));
  const skipped = section.steps.filter((step) => step.key in NOT_RUN_HERE);
  const script = [
    'set -u -o pipefail',
    ...run.map((step, i) => {
      const command = step.command
        .replace(/:3000\//g, `:${receiverPort}/`)
        .replace(/listen\(3000\)/g, `listen(${receiverPort})`);
      return `{\n${command}\n} > "$OUT/${i}.out" 2>&1 < /dev/null; echo $? > "$OUT/${i}.code"; [ "$(cat "$OUT/${i}.code")" = 0 ] || exit 0`;
    }),
    // Background jobs a section left running (it should stop them itself) do not outlive it.
    'jobs -p | xargs -r kill 2> /dev/null; exit 0',
  ].join('\n');
  try {
    await new Promise<void>((done, fail) => {
      // In the clone, as a reader runs them (npx sandbank is this package's own command there).
      const child = spawn('bash', ['-c', script], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, OUT: dir, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('error', fail);
      child.on('close', (code) => (code === 0 ? done() : fail(new Error(`bash exited ${code}: ${stderr}`))));
    });
    const results = run.map((step, i) => ({
      step,
      output: existsSync(join(dir, `${i}.out`)) ? readFileSync(join(dir, `${i}.out`), 'utf8') : '',
      code: existsSync(join(dir, `${i}.code`)) ? Number(readFileSync(join(dir, `${i}.code`), 'utf8')) : null,
    }));
    return { results, skipped };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Everything wrong with a section's run, one line each (empty: the document holds). */
function problems(results: StepResult[], file = 'README.md'): string[] {
  const found: string[] = [];
  for (const { step, output, code } of results) {
    const where = `${file} line ${step.line}: ${step.key.slice(0, 100)}`;
    if (code === null) {
      found.push(`${where}\n  not run (an earlier command failed)`);
      continue;
    }
    if (code !== 0) {
      found.push(`${where}\n  exited ${code}: ${output.slice(0, 800)}`);
      continue;
    }
    for (const expectation of step.expectations) {
      const missing = mismatches(expectation.text, output);
      if (missing.length)
        found.push(
          `${where}\n  line ${expectation.line} expects ${missing.join(', ')}\n  the output was: ${output.slice(0, 1500)}`,
        );
    }
  }
  return found;
}

const documents = EXECUTED.map((file) => ({
  file,
  sections: parseReadme(readFileSync(join(ROOT, file), 'utf8'), file),
}));
const sections = documents.flatMap((document) => document.sections);

describe('README.md and docs/guide, executed', () => {
  let sandbank: Sandbank;
  beforeAll(async () => {
    for (const tool of ['bash', 'curl', 'jq']) {
      const found = await new Promise<boolean>((done) =>
        spawn('bash', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).on('close', (code) =>
          done(code === 0),
        ),
      );
      if (!found) throw new Error(`The README's recipes need ${tool}: apt-get install -y ${tool}`);
    }
    sandbank = await startSandbank(
      process.env.TEST_DATABASE_URL ? { databaseUrl: process.env.TEST_DATABASE_URL } : {},
    );
  });
  afterAll(() => sandbank?.close());

  const envFor = async (title: string) => {
    const merchant = await sandbank.newMerchant(`Docs: ${title}`.slice(0, 100));
    return { BASE: sandbank.url, SK: merchant.secretKey, PK: merchant.publicKey };
  };

  for (const document of documents)
    describe(document.file, () => {
      for (const section of document.sections) {
        it(`${section.title} (${document.file} line ${section.line})`, async () => {
          expect(SECTIONS_NOT_EXECUTED).not.toContain(`${document.file}: ${section.title}`);
          const { results } = await runSection(section, await envFor(`${document.file}: ${section.title}`));
          expect(problems(results, document.file)).toEqual([]);
        });
      }
    });

  it('fails when the README drifts from what the server answers', async () => {
    const tour = sections.find(
      (section) => section.file === 'README.md' && section.title === 'A five-minute tour',
    );
    if (!tour) throw new Error('the README has no five-minute tour');
    // A wrong state in an answer, a renamed field, a wrong amount, and a command that now does
    // something else (a declining card where the README pays): each must be caught.
    const drifted = parseReadme(
      README.replace('"state":"succeeded","amount":125.50', '"state":"pending","amount":125.50')
        .replace('"decline_code":"generic_decline"', '"decline_reason":"generic_decline"')
        .replace('"pending":125.50', '"pending":125.00')
        .replace('"number": "5555555555554444"', '"number": "4000000000009995"'),
    ).find((section) => section.title === 'A five-minute tour');
    if (!drifted) throw new Error('the drifted README has no tour');
    const found = problems((await runSection(drifted, await envFor('drift'))).results);
    const joined = found.join('\n');
    expect(joined).toContain('"state":"pending"');
    expect(joined).toContain('"decline_reason":"generic_decline"');
    expect(joined).toContain('"pending":125.00');
    expect(joined).toMatch(/"state":"succeeded"/); // the webhook's collection is no longer paid

    // A guide drifts the same way: its walkthrough's answers are checked as the README's are.
    const guide = 'docs/guide/card-payments.md';
    const [driftedGuide] = parseReadme(
      readFileSync(join(ROOT, guide), 'utf8').replace(
        '"object":"card_payment","state":"captured","amount":100.00,',
        '"object":"card_payment","state":"authorized","amount":100.00,',
      ),
      guide,
    ).filter((section) => section.title === 'Walkthrough');
    if (!driftedGuide) throw new Error(`${guide} has no walkthrough`);
    const guideProblems = problems(
      (await runSection(driftedGuide, await envFor('drift: guide'))).results,
      guide,
    );
    expect(guideProblems.join('\n')).toMatch(
      /docs\/guide\/card-payments\.md line \d+: [\s\S]*"state":"authorized"/,
    );

    // A command the list does not name is run, and fails when it cannot: here one that would need
    // a script this package does not have.
    const [unlisted] = parseReadme('## Unlisted\n```sh\nnpm run no-such-script\n```\n');
    if (!unlisted) throw new Error('no section parsed');
    const unlistedProblems = problems((await runSection(unlisted, await envFor('unlisted'))).results);
    expect(unlistedProblems.join('\n')).toMatch(/npm run no-such-script\n {2}exited [1-9]/);
  });
});

describe('the README checker', () => {
  it('reads every sh command of the README and the guides and knows each one it does not run', () => {
    const keys = sections.flatMap((section) => section.steps.map((step) => step.key));
    expect(keys.length).toBeGreaterThan(40);
    // The README has a tour, and the guides have commands of their own to run.
    expect(sections.filter((section) => section.file === 'README.md').length).toBeGreaterThan(0);
    expect(sections.filter((section) => section.file.startsWith('docs/guide/')).length).toBeGreaterThan(5);
    // Every command listed as run elsewhere is still in the README (no stale entries).
    expect(Object.keys(NOT_RUN_HERE).filter((key) => !keys.includes(key))).toEqual([]);
    // A command run elsewhere shows no answer here (nothing would check it).
    for (const section of sections)
      for (const step of section.steps)
        if (step.key in NOT_RUN_HERE)
          expect(step.expectations, `${section.file} line ${step.line}`).toEqual([]);
    // Every answer shown has something to check.
    for (const section of sections)
      for (const step of section.steps)
        for (const expectation of step.expectations)
          expect(
            mismatches(expectation.text, '').length,
            `${section.file} line ${expectation.line}`,
          ).toBeGreaterThan(0);
    // A command the list does not name is executed: the README cannot gain an unchecked command.
    const run = sections.flatMap((section) => section.steps).filter((step) => !(step.key in NOT_RUN_HERE));
    expect(run.length).toBe(keys.filter((key) => !(key in NOT_RUN_HERE)).length);
    expect(SECTIONS_NOT_EXECUTED).toEqual([]);
    // A pipe into head ends before the writer does: under pipefail the writer's SIGPIPE (curl's
    // exit 23) fails the step or not depending on timing. Recipes read the whole output instead
    // (sed -n 1,Np).
    const cutShort = sections.flatMap((section) =>
      section.steps
        .filter((step) => /\|\s*head\b/.test(step.command))
        .map((step) => `${section.file} line ${step.line}`),
    );
    expect(cutShort).toEqual([]);
  });

  it('matches tolerantly, but not a wrong value, a renamed key or a missing key', () => {
    const output =
      '{"status":"success","id":"col_01ABC","state":"pending","amount":125.50,"checkout_url":"http://x/checkout/col_01ABC?secret=s","payments":[]}';
    expect(
      mismatches('{"status":"success","id":"col_…","state":"pending",…,"amount":125.50,…}', output),
    ).toEqual([]);
    expect(
      mismatches('{…,"checkout_url":"http://…/checkout/col_…?secret=…","payments":[…]}', output),
    ).toEqual([]);
    expect(mismatches('{"state":"succeeded"}', output)).toEqual(['"state":"succeeded"']);
    expect(mismatches('{"amount":125.5}', output)).toEqual(['"amount":125.5']);
    expect(mismatches('{"amount":125.50}', '{"amount":125.500}')).toEqual(['"amount":125.50']);
    expect(mismatches('{"status_code":"success"}', output)).toEqual(['"status_code":"success"']);
    expect(mismatches('{"data":{…}}', output)).toEqual(['"data":{…']);
    expect(mismatches('→ HTTP/1.1 503', 'HTTP/1.1 503 Service Unavailable\r\n')).toEqual([]);
    expect(mismatches('→ HTTP/1.1 503', 'HTTP/1.1 200 OK\r\n')).toEqual(['text HTTP/1.1 503']);
    expect(mismatches('{…}', output)).toEqual(['nothing checkable in the expectation {…}']);
  });

  it('parses commands, continuation lines, quoted newlines and answers', () => {
    const [section] = parseReadme(
      [
        '## S',
        '```sh',
        '# prose',
        'X=$(curl -s a \\',
        '  -d \'{"a": 1,',
        '       "b": 2}\' | jq -r .id)',
        '# {"id":"x_…",',
        '#  "b":2}',
        'echo hi   # → hi',
        '# not an answer',
        '```',
      ].join('\n'),
    );
    expect(section?.steps.map((step) => step.key)).toEqual([
      'X=$(curl -s a -d \'{"a": 1, "b": 2}\' | jq -r .id)',
      'echo hi',
    ]);
    expect(section?.steps[0]?.expectations.map((e) => e.text)).toEqual(['{"id":"x_…", "b":2}']);
    expect(section?.steps[1]?.expectations.map((e) => e.text)).toEqual(['→ hi']);
  });

  it("fails loudly when the README's webhook receiver finds its port taken", async () => {
    const receiver = sections
      .filter((section) => section.file === 'README.md')
      .flatMap((section) => section.steps)
      .find((step) => step.key.startsWith('node -e') && step.key.includes('listen(3000)'));
    if (!receiver) throw new Error('the README has no webhook receiver on port 3000');
    // Another app on the port: the receiver must say so and exit non-zero, not wait in the background.
    const other = createServer();
    const port = await new Promise<number>((done) =>
      other.listen(0, () => {
        const address = other.address();
        done(typeof address === 'object' && address ? address.port : 0);
      }),
    );
    try {
      const command = receiver.command.replace(/\s*&\s*$/, '').replace(/listen\(3000\)/g, `listen(${port})`);
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((done, fail) => {
        const child = spawn('bash', ['-c', command], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const timer = setTimeout(() => child.kill(), 10_000);
        child.on('error', fail);
        child.on('close', (exit) => {
          clearTimeout(timer);
          done({ code: exit, stderr });
        });
      });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull(); // it exited by itself, not by the timeout
      expect(stderr).toMatch(new RegExp(`receiver: listen EADDRINUSE.*${port}`));
    } finally {
      await new Promise((done) => other.close(done));
    }
  });

  it('links only to files that exist and headings that exist, in the README and all of docs/', () => {
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
    // Code blocks hold no links and no headings (a `# comment` in a sh block is not one).
    const prose = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    const headings = (file: string) =>
      new Set([...prose(file).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? '')));
    const files = ['README.md', ...markdownUnder('docs')];
    expect(files).toContain('docs/README.md');
    const broken: string[] = [];
    for (const file of files)
      for (const match of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const resolved = path ? relative(ROOT, resolve(ROOT, dirname(file), path)) : file;
        if (!existsSync(join(ROOT, resolved))) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !headings(resolved).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    expect(broken).toEqual([]);
  });
});
