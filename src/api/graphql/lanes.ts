import { createHash } from 'node:crypto';
import { ERROR_REGISTRY, SandbankError } from '../../kernel/errors.ts';
import { LaneFull, Lanes } from '../../kernel/lanes.ts';

/** GraphQL requests of one credential that run at once; the others wait their turn. */
export const GRAPHQL_PER_CREDENTIAL = 2;
/** GraphQL requests of one credential that may wait; one more is answered 429 at once. */
export const GRAPHQL_WAITING_PER_CREDENTIAL = 64;

/**
 * Whose lane a GraphQL request waits in: its API key, else its dashboard session cookie, else the
 * anonymous lane. Hashed, so the map never holds a key. A merchant has one live key pair and its
 * own sessions, so this is a lane per merchant in all but the moments of a key roll.
 */
function credentialOf(request: Request): string {
  const credential = request.headers.get('authorization') ?? request.headers.get('cookie') ?? '';
  return createHash('sha256').update(credential).digest('base64url');
}

/**
 * Runs a GraphQL request in its credential's lane (GRAPHQL_PER_CREDENTIAL at once, the rest in
 * arrival order): a client that sends many large queries at once waits behind itself instead of
 * filling the database's queue ahead of other merchants. A subscription holds its place only
 * until its stream starts. Past GRAPHQL_WAITING_PER_CREDENTIAL waiting: 429 rate_limited.
 */
export function graphqlLanes(lanes = new Lanes(GRAPHQL_PER_CREDENTIAL, GRAPHQL_WAITING_PER_CREDENTIAL)) {
  return async (request: Request, run: () => Promise<Response>): Promise<Response> => {
    if (request.method === 'OPTIONS') return run();
    try {
      return await lanes.run(credentialOf(request), run);
    } catch (error) {
      if (!(error instanceof LaneFull)) throw error;
      const refused = new SandbankError('rate_limited', {
        message: `This credential already has ${GRAPHQL_PER_CREDENTIAL} GraphQL requests running and ${GRAPHQL_WAITING_PER_CREDENTIAL} waiting; retry after the time in Retry-After.`,
      });
      const body = {
        errors: [
          {
            message: refused.message,
            extensions: {
              code: refused.code,
              type: ERROR_REGISTRY[refused.code].type,
              status: refused.status,
              http: { status: refused.status },
            },
          },
        ],
      };
      return new Response(JSON.stringify(body), {
        status: refused.status,
        headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
      });
    }
  };
}
