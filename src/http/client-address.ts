import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The address of the connection a request came on ("local" for a request made in-process, as tests
 * do). Forwarding headers are not trusted: behind a proxy, every client shares the proxy's address.
 */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'local';
  } catch {
    return 'local';
  }
}
