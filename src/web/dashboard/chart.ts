import { html } from 'hono/html';
import type { Html } from './ui.ts';

export interface Series {
  label: string;
  /** A CSS colour for the line (an SVG presentation attribute: allowed by the page's CSP). */
  color: string;
  points: { at: Date; value: number }[];
}

const WIDTH = 640;
const HEIGHT = 180;
const PAD = { left: 8, right: 8, top: 12, bottom: 22 };

/**
 * A small line chart drawn on the server as SVG: no chart library, no script. Values are plotted
 * as numbers (pixels only; amounts shown as text are always formatted from minor units). A series
 * is a step line when `steps` is set (a balance keeps its value until the next posting).
 */
export function lineChart(
  title: string,
  series: Series[],
  options: {
    steps?: boolean;
    until?: Date;
    format?: (value: number) => string;
    /** Whether the axis includes zero (default): balances do, rates that move 1% do not. */
    zero?: boolean;
  } = {},
): Html {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return html`<p class="muted" data-testid="chart-empty">Nothing to chart yet.</p>`;
  const times = all.map((p) => p.at.getTime());
  const first = Math.min(...times);
  const last = Math.max(options.until?.getTime() ?? 0, ...times);
  const values = all.map((p) => p.value);
  const withZero = options.zero ?? true;
  const low = withZero ? Math.min(0, ...values) : Math.min(...values);
  let high = Math.max(...values);
  if (high === low) high = low + 1;
  const span = last - first || 1;
  const x = (t: number) => PAD.left + ((t - first) / span) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - low) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  const format = options.format ?? ((v: number) => String(v));
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
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}" preserveAspectRatio="none" data-testid="chart">
  ${withZero ? html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}" stroke="#d0d5dd" stroke-width="1"></line>` : ''}
  ${series.map((s) => html`<path d="${path(s)}" fill="none" stroke="${s.color}" stroke-width="2" vector-effect="non-scaling-stroke"><title>${s.label}</title></path>`)}
</svg>
<figcaption>
  <span class="muted">${new Date(first).toISOString().slice(0, 16).replace('T', ' ')}Z → ${new Date(last).toISOString().slice(0, 16).replace('T', ' ')}Z · range ${format(low)} to ${format(high)}</span>
  ${series.map((s) => html`<span class="legend"><span class="swatch swatch-${s.color.replace('#', '')}"></span>${s.label}</span>`)}
</figcaption>
</figure>`;
}
