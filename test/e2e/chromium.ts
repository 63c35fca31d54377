import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ROOT } from '../server-process.ts';

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

/** Where the browser tests save their screenshots (git-ignored; the README shows copies in docs/). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
