import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ROOT, type ServerProcess, startServerProcess } from '../processes/server-process.ts';

/**
 * Debian's Chromium for the browser tests, headless, never a downloaded browser; the flags keep it
 * off the network (this machine's network is closed, and tests only ever talk to loopback).
 */
export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get update && apt-get install -y chromium). ` +
        'CI installs it; the browser tests do not download a browser.',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    timeout: 60_000,
  });
}

/** Where the browser tests save their screenshots (git-ignored). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'screenshots');
/**
 * The screenshots the README and the guides show: copies of the browser tests' own, refreshed by
 * `SANDBANK_UPDATE_SCREENSHOTS=1 npm run test:browser` (only the names already published there).
 */
export const PUBLISHED_SCREENSHOT_DIR = join(ROOT, 'docs', 'guide', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  const published = join(PUBLISHED_SCREENSHOT_DIR, `${name}.png`);
  if (process.env.SANDBANK_UPDATE_SCREENSHOTS === '1' && existsSync(published)) copyFileSync(path, published);
  return path;
}

/**
 * What a page reports as wrong, collected while the test runs: console errors (Chromium logs each
 * resource a Content-Security-Policy refuses as one), uncaught exceptions, every
 * `securitypolicyviolation` event, and scripts, styles or fetches that failed. Call before the first
 * navigation; a clean page leaves it empty. A page's own status (a form answered 400) is not a
 * problem, nor the favicon a browser asks of a page that names none (a redirect_url's JSON).
 */
export async function watchProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('console', (message) => {
    // A failed load is logged without its URL: the response listener below judges it.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    const request = response.request();
    if (response.status() < 400 || request.resourceType() === 'document') return;
    if (new URL(request.url()).pathname === '/favicon.ico') return;
    problems.push(`${response.status()}: ${request.url()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`securitypolicyviolation: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return problems;
}

/** The keys the browser tests pin on the default merchant of their server. */
export const SECRET_KEY = 'sk_test_browser0000000000000000000000000';
export const PUBLIC_KEY = 'pk_test_browser0000000000000000000000000';

/**
 * The server a browser test drives: a child process with the pinned keys, PGlite in memory (on the
 * suite's Postgres when TEST_DATABASE_URL is set: DATABASE_URL wins over --memory).
 */
export function startBrowserTestServer(): Promise<ServerProcess> {
  return startServerProcess({
    env: { SANDBANK_SECRET_KEY: SECRET_KEY, SANDBANK_PUBLIC_KEY: PUBLIC_KEY },
    args: ['--memory'],
    postgres: true,
  });
}
