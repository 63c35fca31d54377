import { TZDate } from '@date-fns/tz';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { BANK_TIME_ZONE } from '../kernel/calendar.ts';

/**
 * Instants the banking rules set in Eastern Time (ACH windows and cut-offs, expected settlement,
 * RTP and Fed times) as the pages show them: Eastern Time first, UTC beside it,
 * "2027-01-04 10:30 ET · 15:30 UTC". The UTC side repeats the date only when it is another day
 * ("2027-01-04 21:00 ET · 2027-01-05 02:00 UTC"). The one place pages format such times.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** The two sides: `et` "2027-01-04 10:30 ET", `utc` "15:30 UTC" (or with its date when it differs). */
export function bankTimeParts(at: Date): { et: string; utc: string } {
  const ny = new TZDate(at.getTime(), BANK_TIME_ZONE);
  const etDate = `${ny.getFullYear()}-${pad(ny.getMonth() + 1)}-${pad(ny.getDate())}`;
  const iso = at.toISOString();
  const utcDate = iso.slice(0, 10);
  return {
    et: `${etDate} ${pad(ny.getHours())}:${pad(ny.getMinutes())} ET`,
    utc: `${utcDate === etDate ? '' : `${utcDate} `}${iso.slice(11, 16)} UTC`,
  };
}

/** "2027-01-04 10:30 ET · 15:30 UTC". */
export function bankTime(at: Date): string {
  const { et, utc } = bankTimeParts(at);
  return `${et} · ${utc}`;
}

/** bankTime as an HTML <time> (the exact instant in its datetime and title); a dash for none. */
export function bankWhen(at: Date | null | undefined): HtmlEscapedString | Promise<HtmlEscapedString> {
  if (!at) return html`<span class="muted">—</span>`;
  const iso = at.toISOString();
  return html`<time datetime="${iso}" title="${iso}">${bankTime(at)}</time>`;
}
