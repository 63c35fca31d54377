/**
 * The dashboard's charts: server-rendered SVG with a time axis and a value axis in the currency,
 * readable after the merchant's clock jumps by years.
 */
import { describe, expect, it } from 'vitest';
import { timeTicks, valueTicks } from '../../../src/web/dashboard/chart.ts';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';

const app = dashboardTestApp();

const DAY = 86_400_000;

/** The USD balance chart of the home page: its time ticks, value ticks, path and caption. */
function usdChart(page: string) {
  const figure =
    /data-testid="balance-USD">[\s\S]*?(<figure class="chart">[\s\S]*?<\/figure>)/.exec(page)?.[1] ?? '';
  const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1] ?? '';
  const timeTicks = [...figure.matchAll(/<text [^>]*data-testid="time-tick"[^>]*>([^<]*)<\/text>/g)].map(
    (m) => ({
      label: m[1] ?? '',
      x: Number(attr(m[0], 'x')),
      at: attr(m[0], 'data-at'),
    }),
  );
  const valueTicks = [...figure.matchAll(/data-testid="value-tick">([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
  const paths = [...figure.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1] ?? '');
  return { figure, timeTicks, valueTicks, paths };
}

/** The x of each vertical step of a step path (where the value changes). */
function stepXs(d: string): number[] {
  return [...d.matchAll(/H([\d.]+)V/g)].map((m) => Number(m[1]));
}

describe('balance charts', () => {
  it('have a time axis with date labels and a value axis written in the currency', async () => {
    const m = await app().merchant('Chart Shop');
    const post = (path: string, body: unknown) => app().rest('POST', path, { key: m.secretKey, body });
    await app().rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    await post('/v1/clock/advance', { to: '2031-12-01T09:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
    await post('/v1/clock/advance', { to: '2031-12-04T09:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '1500.00', currency: 'USD' });
    await post('/v1/clock/advance', { to: '2031-12-08T09:00:00Z' });
    const browser = await signedIn(app, m);
    const chart = usdChart((await browser.get('/dashboard')).html);
    expect(chart.figure).toContain('data-testid="time-axis"');
    expect(chart.figure).not.toContain('preserveAspectRatio="none"');
    // Days of the week the chart spans, in order, left to right.
    expect(chart.timeTicks.length).toBeGreaterThanOrEqual(2);
    for (const tick of chart.timeTicks) expect(tick.label).toMatch(/^Dec \d\d$/);
    const xs = chart.timeTicks.map((tick) => tick.x);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    // Round amounts from zero to above the top (2,500 USD), each in USD.
    expect(chart.valueTicks[0]).toBe('0 USD');
    expect(chart.valueTicks.length).toBeGreaterThanOrEqual(3);
    for (const label of chart.valueTicks) expect(label).toMatch(/^[\d,]+ USD$/);
    const top = Number(chart.valueTicks.at(-1)?.replace(/[^\d]/g, ''));
    expect(top).toBeGreaterThanOrEqual(2500);
    expect(chart.figure).toContain('range 0.00 USD to 2,500.00 USD');
  });

  it('after the clock advances five years, activity before and after stays apart, on labelled days', async () => {
    const m = await app().merchant('Jump Shop');
    const post = (path: string, body: unknown) => app().rest('POST', path, { key: m.secretKey, body });
    await app().rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    await post('/v1/clock/advance', { to: '2031-12-01T09:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '1000.00', currency: 'USD' });
    await post('/v1/clock/advance', { to: '2036-12-01T09:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '200.00', currency: 'USD' });
    await post('/v1/clock/advance', { to: '2036-12-05T09:00:00Z' });
    await post('/v1/simulate/balance/top_up', { amount: '300.00', currency: 'USD' });
    await post('/v1/clock/advance', { to: '2036-12-10T09:00:00Z' });
    const browser = await signedIn(app, m);
    const chart = usdChart((await browser.get('/dashboard')).html);
    // Ticks fall on days of the last weeks, not years: the scale follows the recent span.
    expect(chart.timeTicks.length).toBeGreaterThanOrEqual(3);
    for (const tick of chart.timeTicks) {
      expect(tick.label).toMatch(/^(Nov|Dec) \d\d$/);
      expect(tick.at.startsWith('2036-')).toBe(true);
    }
    // The available line starts at what the older top-up left (1,000 USD, drawn from the left
    // edge), then steps up twice at distinct places, days apart.
    const available = chart.paths[0] ?? '';
    const steps = stepXs(available).filter((x, i, all) => i === 0 || x !== all[i - 1]);
    expect(steps.length).toBeGreaterThanOrEqual(2);
    const [a = 0, b = 0] = steps.slice(-2);
    expect(b - a).toBeGreaterThan(30);
    expect(chart.figure).toContain('range 0.00 USD to 1,500.00 USD');
    expect(chart.figure).toMatch(/2036-11-10 09:00Z → 2036-12-10 09:00Z/);
    for (const label of chart.valueTicks) expect(label).toMatch(/^[\d,]+ USD$/);
  });
});

describe('axis ticks', () => {
  it('time ticks step on hours, days, months or years as the span asks, never more than asked', () => {
    const at = Date.parse('2031-12-02T14:20:00Z');
    const hours = timeTicks(at, at + 5 * 3_600_000);
    expect(hours.map((tick) => tick.label)).toEqual(['15:00', '16:00', '17:00', '18:00', '19:00']);
    const days = timeTicks(at, at + 6 * DAY, 4);
    expect(days.map((tick) => tick.label)).toEqual(['Dec 03', 'Dec 05', 'Dec 07']);
    const years = timeTicks(at, Date.parse('2036-12-10T00:00:00Z'));
    expect(years.map((tick) => tick.label)).toEqual(['2032', '2033', '2034', '2035', '2036']);
    const months = timeTicks(at, Date.parse('2032-05-10T00:00:00Z'), 6);
    expect(months.map((tick) => tick.label)).toEqual([
      'Jan 2032',
      'Feb 2032',
      'Mar 2032',
      'Apr 2032',
      'May 2032',
    ]);
  });

  it('value ticks are round: 1, 2 or 5 times a power of ten', () => {
    expect(valueTicks(0, 250_000)).toEqual([0, 100_000, 200_000, 300_000]);
    expect(valueTicks(0, 150_000)).toEqual([0, 50_000, 100_000, 150_000]);
    expect(valueTicks(1.0832, 1.0951)).toEqual([1.08, 1.085, 1.09, 1.095, 1.1]);
  });
});
