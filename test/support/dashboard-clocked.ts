/**
 * A signed-in dashboard browser for a merchant whose clock is frozen at a chosen instant, with
 * funds (the virtual-card and FX page tests), and reading what an element with a data-testid says.
 */

import { clockedMerchants } from './clocked-merchant.ts';
import { type DashboardBrowser, signedIn } from './dashboard.ts';
import type { TestApp, TestMerchant } from './harness.ts';

export function clockedDashboard(app: () => TestApp) {
  const clocked = clockedMerchants(app);
  /** A new merchant frozen at `at` with `funds` USD available, and its signed-in browser. */
  async function signedInAt(
    at: string,
    funds: string,
  ): Promise<{ m: TestMerchant; browser: DashboardBrowser }> {
    const m = await clocked.merchantAt(at, funds);
    return { m, browser: await signedIn(app, m) };
  }
  return { ...clocked, signedInAt };
}

/** The text of every element with this data-testid (up to its first child element), in page order. */
export function testIdTexts(page: string, testId: string): (string | undefined)[] {
  return [...page.matchAll(new RegExp(`data-testid="${testId}"[^>]*>([^<]*)<`, 'g'))].map(
    (match) => match[1],
  );
}
