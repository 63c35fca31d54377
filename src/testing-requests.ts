import type {
  SandbankRequest,
  SandbankRequestDetail,
  SandbankRequestMatch,
  SandbankRequestsOptions,
} from './testing.ts';
import { call } from './testing-receiver.ts';

/**
 * sandbank/testing's assertions on the merchant's request log (GET /v1/requests): requests() and
 * expectRequest(). The server writes a request to its log before a read of the log answers, so a
 * request the code under test has had answered is there for the very next assertion.
 */

/** Pages read at most (the log keeps 1000 requests per merchant by default: 10 pages). */
const MAX_PAGES = 50;

interface Page {
  data: SandbankRequest[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The list's query string for these options. */
function queryOf(options: SandbankRequestsOptions): URLSearchParams {
  const query = new URLSearchParams({ limit: '100' });
  const since = options.since instanceof Date ? options.since.toISOString() : options.since;
  if (since !== undefined) query.set('created_from', since);
  if (options.operation !== undefined) query.set('operation', options.operation);
  if (options.status !== undefined) query.set('status', String(options.status));
  if (options.method !== undefined) query.set('method', options.method);
  if (options.path !== undefined) query.set('path', options.path);
  if (options.idempotencyKey !== undefined) query.set('idempotency_key', options.idempotencyKey);
  if (!options.includeTesting) query.set('source', 'api,dashboard,cli');
  return query;
}

/** The merchant's requests that match, oldest first. */
export async function requestsOf(
  base: string,
  key: string,
  options: SandbankRequestsOptions = {},
): Promise<SandbankRequest[]> {
  const query = queryOf(options);
  const found: SandbankRequest[] = [];
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await call<Page>(base, key, 'GET', `/requests?${query}`);
    found.push(...page.data);
    if (!page.has_more || !page.next_cursor) break;
    query.set('starting_after', page.next_cursor);
  }
  return found.reverse();
}

/** What a match asks for, in words: `operation createCardPayment, status 402`. */
function describeMatch(match: SandbankRequestMatch): string {
  const parts = Object.entries(match)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name} ${value instanceof Date ? value.toISOString() : String(value)}`);
  return parts.length > 0 ? parts.join(', ') : 'any request';
}

/** A request as a line of the failure's list: `POST /v1/collect → 400 amount_invalid (createCollection)`. */
function line(request: SandbankRequest): string {
  const status = request.error_code ? `${request.status_code} ${request.error_code}` : request.status_code;
  return `  ${request.method} ${request.path} → ${status} (${request.operation ?? 'no operation'})`;
}

/** The newest request that matches, with its bodies; throws listing what was seen when none does. */
export async function expectRequestOf(
  base: string,
  key: string,
  match: SandbankRequestMatch,
): Promise<SandbankRequestDetail> {
  const query = queryOf(match);
  query.set('limit', '1');
  const [newest] = (await call<Page>(base, key, 'GET', `/requests?${query}`)).data;
  if (newest) return call<SandbankRequestDetail>(base, key, 'GET', `/requests/${newest.id}`);
  const seen = await requestsOf(base, key, match.since === undefined ? {} : { since: match.since });
  const shown = seen.slice(-20);
  const list =
    seen.length === 0
      ? 'none were made'
      : `${seen.length} were made${seen.length > shown.length ? ` (the last ${shown.length}: oldest first)` : ' (oldest first)'}:\n${shown.map(line).join('\n')}`;
  throw new Error(`Sandbank: expected a request with ${describeMatch(match)}; ${list}`);
}
