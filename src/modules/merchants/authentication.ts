import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { TtlCache } from '../../kernel/ttl-cache.ts';
import type { Principal } from '../context.ts';
import { hashKey, keyKindOf } from './keys.ts';
import { apiKeys, merchants } from './merchants.table.ts';

/** Who a request acts for: the type lives with the service context, so the adapters' kits name it from there. */
export type { Principal };

/**
 * Found keys are cached in-process for two seconds (unknown keys are never cached): rolling or
 * pinning keys in this process clears the cache at once; a key revoked by another instance or the
 * CLI stops working within two seconds.
 */
const keyCache = new TtlCache<Principal | null>(2_000, 10_000, (principal) => principal !== null);

export function forgetCachedKeys(): void {
  keyCache.clear();
}

/**
 * The key an Authorization header carries: `Bearer <key>`, or HTTP Basic with the key as the user
 * name and any password (`curl -u sk_test_…:`, as Stripe's API takes it). Undefined when neither.
 */
function keyOf(authorization: string): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization);
  if (!basic?.[1]) return undefined;
  const credentials = Buffer.from(basic[1], 'base64').toString('utf8');
  const user = credentials.slice(0, credentials.includes(':') ? credentials.indexOf(':') : undefined);
  return user === '' ? undefined : user;
}

/**
 * The one authentication used by the REST middleware and the GraphQL context. Takes the raw
 * Authorization header value and returns the merchant and key kind, or throws 401.
 */
export async function authenticate(db: Db, authorization: string | null | undefined): Promise<Principal> {
  const key = keyOf(authorization ?? '');
  if (!key) throw new SandbankError('api_key_missing');
  const keyKind = keyKindOf(key);
  if (!keyKind) {
    throw new SandbankError('api_key_missing', {
      message:
        'The Authorization header must be "Bearer sk_test_..." or "Bearer pk_test_..." (or HTTP Basic with the key as the user name).',
    });
  }
  const keyHash = hashKey(key);
  const principal = await keyCache.get(keyHash, () => lookupKey(db, keyHash));
  if (!principal) throw new SandbankError('api_key_invalid');
  return principal;
}

async function lookupKey(db: Db, keyHash: string): Promise<Principal | null> {
  const [row] = await db
    .select({ kind: apiKeys.kind, revokedAt: apiKeys.revokedAt, id: merchants.id, name: merchants.name })
    .from(apiKeys)
    .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  if (!row || row.revokedAt) return null;
  return { merchant: { id: row.id, name: row.name }, keyKind: row.kind };
}

/** Throws 403 secret_key_required unless the principal used its secret key. */
export function requireSecretKey(principal: Principal): void {
  if (principal.keyKind !== 'secret') throw new SandbankError('secret_key_required');
}
