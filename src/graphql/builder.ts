import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { Clock } from '../kernel/clock.ts';
import { SandbankError } from '../kernel/errors.ts';
import type { AppDeps, Credential, Principal } from '../modules/context.ts';
import { generatedDescriptionsPlugin } from './descriptions.ts';
import { storableTextPlugin } from './storable-text.ts';

export interface GraphQLContext {
  deps: AppDeps;
  requestId: string;
  principal: Principal | null;
  /**
   * What the principal authenticated with (null when unauthenticated): a live subscription ends
   * when it stops authenticating (credential-watch.ts), whatever the transport.
   */
  credential: Credential | null;
  /** Aborted when the HTTP client goes away (a subscription over SSE ends then); null over graphql-ws. */
  signal: AbortSignal | null;
  /** The authenticated merchant's clock (real time when unauthenticated). */
  clock: Clock;
  /** Why authentication failed (missing or invalid key); raised by the first field that needs a key. */
  authError: SandbankError | null;
  /** Idempotency-Key header, when the HTTP request carried one. */
  idempotencyKey: string | null;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { secretKey: boolean; anyKey: boolean };
  Scalars: {
    Decimal: { Input: string | number; Output: string };
    DateTime: { Input: Date; Output: Date };
    JSONObject: { Input: Record<string, string>; Output: Record<string, unknown> };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ErrorsPlugin, ScopeAuthPlugin, RelayPlugin, generatedDescriptionsPlugin, storableTextPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ secretKey: ctx.principal?.keyKind === 'secret', anyKey: Boolean(ctx.principal) }),
    unauthorizedError: (_parent, ctx) => ctx.authError ?? new SandbankError('secret_key_required'),
  },
  errors: { defaultTypes: [] },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // What every connection shares, described once (the connection and edge types themselves are
    // described by descriptions.ts, from their names).
    pageInfoTypeOptions: {
      description: 'Where a page stands in its list: whether more items follow, and the cursors of its ends.',
    },
    hasNextPageFieldOptions: {
      description: 'Whether more items follow this page (ask with after: endCursor).',
    },
    hasPreviousPageFieldOptions: { description: 'Whether this page was asked for after a cursor.' },
    startCursorFieldOptions: { description: "The first item's cursor (its id); null on an empty page." },
    endCursorFieldOptions: { description: "The last item's cursor (its id); null on an empty page." },
    edgesFieldOptions: { description: "The page's items, newest first, each with its cursor." },
    pageInfoFieldOptions: {
      description: 'Whether more items follow, and the cursors of the ends of the page.',
    },
    cursorFieldOptions: { description: "The item's cursor: its id (pass it as after to read on)." },
    nodeFieldOptions: { description: 'The item.' },
    firstArgOptions: { description: 'How many items to return: 1-100 (default 20).' },
    afterArgOptions: { description: 'Return the items after this cursor (an endCursor of a previous page).' },
    lastArgOptions: {
      description:
        'Not supported: pages run forward from the newest item (use first and after). Refused when given.',
    },
    beforeArgOptions: {
      description:
        'Not supported: pages run forward from the newest item (use first and after). Refused when given.',
    },
  },
});

builder.queryType({
  authScopes: { secretKey: true },
  description:
    "Reads of the merchant's objects, with the secret key (Authorization: Bearer sk_test_…); each mirrors a GET of /v1.",
});
builder.mutationType({
  authScopes: { secretKey: true },
  description:
    'Changes, with the secret key (createCardToken also takes the public key); each mirrors a POST of /v1 and answers with its Success type or a SandbankError.',
});
