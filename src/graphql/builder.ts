import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { AppDeps } from '../deps.ts';
import type { Clock } from '../kernel/clock.ts';
import { SandbankError } from '../kernel/errors.ts';
import type { Principal } from '../modules/merchants/authentication.ts';
import { storableTextPlugin } from './storable-text.ts';

export interface GraphQLContext {
  deps: AppDeps;
  requestId: string;
  principal: Principal | null;
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
  plugins: [ErrorsPlugin, ScopeAuthPlugin, RelayPlugin, storableTextPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ secretKey: ctx.principal?.keyKind === 'secret', anyKey: Boolean(ctx.principal) }),
    unauthorizedError: (_parent, ctx) => ctx.authError ?? new SandbankError('secret_key_required'),
  },
  errors: { defaultTypes: [] },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
  },
});

builder.queryType({ authScopes: { secretKey: true } });
builder.mutationType({ authScopes: { secretKey: true } });
