import { html } from 'hono/html';
import type { Html } from './ui.ts';

export interface Series {
  label: string;
  /** A CSS colour for the line (an SVG presentation attribute: allowed by the page's CSP). */
  color: string;
  points: { at: Date; value: number }[];
}

const WIDTH = 480;
const HEIGHT = 220;
const FONT = 15;
const HOUR = 3_600_000;

/** A time tick: where it falls and its label. */
interface Tick {
  at: number;
  label: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');
const dayLabel = (d: Date) => `${MONTHS[d.getUTCMonth()]} ${pad2(d.getUTCDate())}`;

/** Steps a time axis may use, finest first: fixed spans up to two weeks, then calendar months and years. */
const STEPS: { hours?: number; months?: number }[] = [
  { hours: 1 },
  { hours: 2 },
  { hours: 3 },
  { hours: 6 },
  { hours: 12 },
  { hours: 24 },
  { hours: 48 },
  { hours: 7 * 24 },
  { hours: 14 * 24 },
  { months: 1 },
  { months: 3 },
  { months: 6 },
  { months: 12 },
  { months: 24 },
  { months: 60 },
  { months: 120 },
  { months: 600 },
];

function ticksOf(step: { hours?: number; months?: number }, from: number, to: number): Tick[] {
  const ticks: Tick[] = [];
  if (step.hours) {
    const size = step.hours * HOUR;
    // Hours align on the UTC day; days and weeks on UTC midnight.
    for (let at = Math.ceil(from / size) * size; at <= to; at += size) {
      const d = new Date(at);
      const midnight = d.getUTCHours() === 0;
      ticks.push({
        at,
        label: step.hours < 24 && !midnight ? `${pad2(d.getUTCHours())}:00` : dayLabel(d),
      });
    }
    return ticks;
  }
  const months = step.months ?? 12;
  const start = new Date(from);
  let index = start.getUTCFullYear() * 12 + start.getUTCMonth();
  if (Date.UTC(Math.floor(index / 12), index % 12, 1) < from) index += 1;
  index = Math.ceil(index / months) * months;
  for (; ; index += months) {
    const at = Date.UTC(Math.floor(index / 12), index % 12, 1);
    if (at > to) break;
    const d = new Date(at);
    ticks.push({
      at,
      label:
        months % 12 === 0 ? String(d.getUTCFullYear()) : `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`,
    });
  }
  return ticks;
}

/** At most `most` ticks over [from, to], on the finest calendar step that allows it (at least two when it can). */
export function timeTicks(from: number, to: number, most = 5): Tick[] {
  let best: Tick[] = [];
  for (const step of STEPS) {
    const ticks = ticksOf(step, from, to);
    if (ticks.length <= most) return ticks.length > 0 || best.length === 0 ? ticks : best;
    best = ticks;
  }
  return best.slice(0, most);
}

/** Round values for a value axis covering [low, high]: multiples of 1, 2 or 5 times a power of ten. */
export function valueTicks(low: number, high: number, most = 4): number[] {
  const span = high - low || Math.abs(high) || 1;
  const raw = span / Math.max(1, most - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  // From the round value at or under the lowest to the one at or over the highest.
  const ticks: number[] = [];
  const top = Math.ceil(high / step - 1e-9);
  for (let k = Math.floor(low / step + 1e-9); k <= top; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

export interface ChartOptions {
  steps?: boolean;
  /** The end of the time axis (the merchant's clock): a step line holds its last value until then. */
  until?: Date;
  /** How the caption writes a value. */
  format?: (value: number) => string;
  /** How the value axis writes a tick (shorter than the caption's); `format` when absent. */
  axisFormat?: (value: number) => string;
  /** Whether the axis includes zero (default): balances do, rates that move 1% do not. */
  zero?: boolean;
  /**
   * The longest span shown, ending at `until`: older points only give the value the line starts
   * with. A clock advanced by years then shows the recent days readably instead of one spike.
   */
  window?: number;
  /** The value every series had before its first point (a balance: zero), drawn from the left edge. */
  initial?: number;
}

/**
 * A line chart drawn on the server as SVG: no chart library, no script. It has a time axis (ticks
 * on hours, days, months or years, chosen from the span actually shown) and a value axis (round
 * values, written by `axisFormat`). Values are plotted as numbers (pixels only; amounts shown as
 * text are always formatted from minor units). A series is a step line when `steps` is set (a
 * balance keeps its value until the next posting).
 */
export function lineChart(title: string, series: Series[], options: ChartOptions = {}): Html {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return html`<p class="muted" data-testid="chart-empty">Nothing to chart yet.</p>`;
  const times = all.map((p) => p.at.getTime());
  const last = Math.max(options.until?.getTime() ?? 0, ...times);
  let first = Math.min(...times);
  if (options.window && last - first > options.window) first = last - options.window;
  if (last - first < HOUR) first = last - HOUR;
  // Each series as drawn: a point older than the window (or `initial`) gives the value it starts with.
  const shown = series.map((s) => {
    const before = s.points.filter((p) => p.at.getTime() < first).at(-1);
    const inside = s.points.filter((p) => p.at.getTime() >= first);
    const start = before?.value ?? options.initial;
    const head = options.steps && start !== undefined && (inside[0]?.at.getTime() ?? last) > first;
    return {
      ...s,
      points: head && start !== undefined ? [{ at: new Date(first), value: start }, ...inside] : inside,
    };
  });
  const values = shown.flatMap((s) => s.points.map((p) => p.value));
  if (values.length === 0) values.push(0);
  const withZero = options.zero ?? true;
  let low = withZero ? Math.min(0, ...values) : Math.min(...values);
  let high = withZero ? Math.max(0, ...values) : Math.max(...values);
  if (high === low) high = low + (withZero ? 1 : Math.abs(low) * 0.01 || 1);
  const format = options.format ?? ((v: number) => String(v));
  const axisFormat = options.axisFormat ?? format;
  const yTicks = valueTicks(low, high);
  low = Math.min(low, ...yTicks);
  high = Math.max(high, ...yTicks);
  const yLabels = yTicks.map((v) => ({ v, label: axisFormat(v) }));
  const longest = Math.max(...yLabels.map((l) => l.label.length));
  const pad = { left: Math.min(200, Math.ceil(longest * FONT * 0.6) + 12), right: 14, top: 12, bottom: 28 };
  const span = last - first;
  const plotWidth = WIDTH - pad.left - pad.right;
  const x = (t: number) => pad.left + ((t - first) / span) * plotWidth;
  const y = (v: number) => pad.top + (1 - (v - low) / (high - low)) * (HEIGHT - pad.top - pad.bottom);
  const xTicks = timeTicks(first, last, Math.max(2, Math.floor(plotWidth / 80)));
  const path = (s: Series) => {
    const parts: string[] = [];
    s.points.forEach((p, i) => {
      const px = x(p.at.getTime()).toFixed(1);
      const py = y(p.value).toFixed(1);
      if (i === 0) parts.push(`M${px},${py}`);
      else if (options.steps) parts.push(`H${px}V${py}`);
      else parts.push(`L${px},${py}`);
    });
    const end = s.points.at(-1);
    if (options.steps && end && options.until) parts.push(`H${x(options.until.getTime()).toFixed(1)}`);
    return parts.join('');
  };
  const bottom = HEIGHT - pad.bottom;
  // A label near an edge of the chart leans inwards rather than being cut off.
  const anchor = (tick: Tick) => {
    const half = (tick.label.length * FONT * 0.6) / 2;
    if (x(tick.at) + half > WIDTH - 2) return 'end';
    if (x(tick.at) - half < 2) return 'start';
    return 'middle';
  };
  const stamp = (t: number) => `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')}Z`;
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}" data-testid="chart" font-size="${FONT}" fill="#667085">
  <g data-testid="value-axis">${yLabels.map(
    ({
      v,
      label,
    }) => html`<line x1="${pad.left}" x2="${WIDTH - pad.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="${v === 0 ? '#98a2b3' : '#eaecf0'}" stroke-width="1"></line>
  <text x="${pad.left - 6}" y="${(y(v) + FONT * 0.35).toFixed(1)}" text-anchor="end" data-testid="value-tick">${label}</text>`,
  )}</g>
  <g data-testid="time-axis">
  <line x1="${pad.left}" x2="${WIDTH - pad.right}" y1="${bottom}" y2="${bottom}" stroke="#98a2b3" stroke-width="1"></line>${xTicks.map(
    (tick) => html`
  <line x1="${x(tick.at).toFixed(1)}" x2="${x(tick.at).toFixed(1)}" y1="${bottom}" y2="${bottom + 4}" stroke="#98a2b3" stroke-width="1"></line>
  <text x="${x(tick.at).toFixed(1)}" y="${bottom + 6 + FONT}" text-anchor="${anchor(tick)}" data-testid="time-tick" data-at="${new Date(tick.at).toISOString()}">${tick.label}</text>`,
  )}</g>
  ${shown.map((s) => html`<path d="${path(s)}" fill="none" stroke="${s.color}" stroke-width="2"><title>${s.label}</title></path>`)}
</svg>
<figcaption>
  <span class="muted">${stamp(first)} → ${stamp(last)} · range ${format(Math.min(...values))} to ${format(Math.max(...values))}</span>
  ${series.map((s) => html`<span class="legend"><span class="swatch swatch-${s.color.replace('#', '')}"></span>${s.label}</span>`)}
</figcaption>
</figure>`;
}
