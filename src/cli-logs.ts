import { setTimeout as sleep } from 'node:timers/promises';
import { decodeTime, encodeTime } from 'ulid';
import { type CliValues, refusal, serverOf, unreachable } from './cli-remote.ts';
import { CLI_USER_AGENT } from './user-agent.ts';

/**
 * `sandbank logs tail`: the key's merchant's API requests as they happen, one line each, read from
 * the running server's request log (GET /v1/requests) every POLL_MS until Ctrl-C. It starts after
 * the newest request logged so far, and prints each request once, in id order (the order they
 * arrived). A request is logged once answered, so a slow one can be logged after a quicker one that
 * arrived later: each poll reads back OVERLAP_MS below the newest request seen, and skips those it
 * printed already.
 */

/** How often the log is read. */
const POLL_MS = 500;
/** How far below the newest request printed each poll reads again (a slow request logged late). */
const OVERLAP_MS = 60_000;

interface Entry {
  id: string;
  method: string;
  path: string;
  status_code: number;
  error_code: string | null;
  operation: string | null;
  latency_ms: number;
  source: string;
  created_at: string;
}

interface Page {
  data: Entry[];
  has_more: boolean;
}

/** The smallest request id of the instant `ms` (ids are ULIDs of their request's arrival). */
function idFloorAt(ms: number): string {
  return `req_${encodeTime(Math.max(0, ms), 10)}`;
}

function timeOfId(id: string): number {
  try {
    return decodeTime(id.slice(id.indexOf('_') + 1));
  } catch {
    return 0;
  }
}

/** One request as a line: time, method, path, status (and error code), operation, latency, id. */
export function tailLine(entry: Entry): string {
  const status = entry.error_code ? `${entry.status_code} ${entry.error_code}` : String(entry.status_code);
  return [
    entry.created_at,
    entry.method.padEnd(6),
    entry.path,
    status,
    entry.operation ?? '-',
    `${entry.latency_ms} ms`,
    entry.id,
  ].join('  ');
}

async function getPage(api: string, key: string, query: URLSearchParams, signal: AbortSignal): Promise<Page> {
  let response: Response;
  try {
    response = await fetch(`${api}/v1/requests?${query}`, {
      headers: { authorization: `Bearer ${key}`, 'user-agent': CLI_USER_AGENT },
      signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw unreachable(api, error);
  }
  const text = await response.text();
  if (!response.ok) {
    const refused = new Error(
      `the server refused to read the request log (${response.status}): ${refusal(text)}`,
    );
    // 4xx is the command's mistake (a wrong key, a bad --status): it stops; anything else is retried.
    if (response.status < 500) Object.assign(refused, { final: true });
    throw refused;
  }
  return JSON.parse(text) as Page;
}

/** `sandbank logs tail [--status 4xx] [--json]`. */
export async function runLogs(args: string[], values: CliValues): Promise<number> {
  if (args.length !== 1 || args[0] !== 'tail')
    throw new Error('usage: sandbank logs tail [--api URL] [--key sk_test_...] [--status 4xx] [--json]');
  const { key, api } = serverOf('logs tail', values);
  const filters = new URLSearchParams(typeof values.status === 'string' ? { status: values.status } : {});
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

  // Where it starts: after the newest request logged so far (of any status).
  const [newest] = (await getPage(api, key, new URLSearchParams({ limit: '1' }), stop.signal)).data;
  const start = newest?.id ?? '';
  const printed = new Set<string>();
  let latest = start;
  let failing = false;
  process.stderr.write(`Tailing the request log of ${api} (Ctrl-C stops)\n`);
  while (!stop.signal.aborted) {
    try {
      const floor = [start, latest ? idFloorAt(timeOfId(latest) - OVERLAP_MS) : ''].sort().at(-1) ?? '';
      const found: Entry[] = [];
      let after = floor;
      for (;;) {
        const query = new URLSearchParams(filters);
        query.set('limit', '100');
        if (after) query.set('ending_before', after);
        const page = await getPage(api, key, query, stop.signal);
        found.push(...page.data.filter((entry) => entry.id > start && !printed.has(entry.id)));
        if (!page.has_more || page.data.length === 0) break;
        after = page.data[0]?.id ?? after;
      }
      found.sort((a, b) => (a.id < b.id ? -1 : 1));
      for (const entry of found) {
        printed.add(entry.id);
        if (entry.id > latest) latest = entry.id;
        process.stdout.write(`${values.json ? JSON.stringify(entry) : tailLine(entry)}\n`);
      }
      for (const id of printed) if (id < floor) printed.delete(id);
      failing = false;
    } catch (error) {
      if (stop.signal.aborted) break;
      if ((error as { final?: boolean }).final) throw error;
      if (!failing) process.stderr.write(`sandbank: ${(error as Error).message}; trying again\n`);
      failing = true;
    }
    await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => {});
  }
  return 0;
}
