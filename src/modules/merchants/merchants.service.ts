import { and, desc, eq, isNull } from 'drizzle-orm';
import { type Db, type Executor, isUniqueViolation } from '../../db/client.ts';
import { type Clock, systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { MerchantRef } from '../context.ts';
import { announceCredentialChange, endDashboardAccess } from './credentials.ts';
import { generateKey, hashKey, type KeyKind, keyKindOf } from './keys.ts';
import { apiKeys, merchants } from './merchants.table.ts';
import type { SignupLimiter } from './signups.ts';

export interface KeyPair {
  secretKey: string;
  publicKey: string;
}

export interface MerchantWithKeys extends KeyPair {
  merchant: MerchantRef;
}

const NAME_MAX = 100;

function validName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.trim().length > NAME_MAX) {
    throw new SandbankError('parameter_invalid', {
      param: 'name',
      message: `A merchant name is 1-${NAME_MAX} characters.`,
    });
  }
  return name.trim();
}

async function insertKey(
  exec: Executor,
  merchantId: string,
  kind: KeyKind,
  key: string,
  at: Date,
): Promise<void> {
  await exec.insert(apiKeys).values({
    id: newId('apiKey'),
    merchantId,
    kind,
    keyHash: hashKey(key),
    last4: key.slice(-4),
    publicKey: kind === 'public' ? key : null,
    createdAt: at,
  });
}

export interface ActiveKey {
  kind: KeyKind;
  last4: string;
  /** The whole key, for a public key created since keys are kept so (null for secret keys). */
  publicKey: string | null;
  createdAt: Date;
}

/** The merchant's keys in use, newest first (the dashboard's keys page). */
export async function activeKeys(db: Db, merchantId: string): Promise<ActiveKey[]> {
  return db
    .select({
      kind: apiKeys.kind,
      last4: apiKeys.last4,
      publicKey: apiKeys.publicKey,
      createdAt: apiKeys.createdAt,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt));
}

/** Creates a merchant with a fresh (or pinned) key pair; the keys are returned once and stored hashed. */
export async function createMerchant(
  db: Db,
  clock: Clock,
  input: { name: unknown; isDefault?: boolean; keys?: Partial<KeyPair> },
): Promise<MerchantWithKeys> {
  const name = validName(input.name);
  const secretKey = input.keys?.secretKey ?? generateKey('secret');
  const publicKey = input.keys?.publicKey ?? generateKey('public');
  const at = clock.now();
  const merchant = { id: newId('merchant'), name };
  await db.transaction(async (tx) => {
    await tx.insert(merchants).values({ ...merchant, isDefault: input.isDefault ?? false, createdAt: at });
    await insertKey(tx, merchant.id, 'secret', secretKey, at);
    await insertKey(tx, merchant.id, 'public', publicKey, at);
  });
  return { merchant, secretKey, publicKey };
}

/**
 * The keyless sign-up (REST and the dashboard's form): a valid name, then one of the address's
 * sign-ups (429 past the cap), then the merchant with its keys.
 */
export async function signUp(
  db: Db,
  clock: Clock,
  input: { name: unknown },
  limit: { signups?: SignupLimiter | undefined; address: string },
): Promise<MerchantWithKeys> {
  validName(input.name);
  limit.signups?.take(limit.address);
  return createMerchant(db, clock, input);
}

export interface DefaultMerchant {
  merchant: MerchantRef;
  /** Keys known in full at this start: newly created or pinned by the environment. */
  secretKey: string | null;
  publicKey: string | null;
  secretKeyLast4: string;
  publicKeyLast4: string;
  created: boolean;
}

function assertPinnedKey(key: string | undefined, kind: KeyKind, variable: string): void {
  if (key !== undefined && keyKindOf(key) !== kind) {
    throw new Error(
      `${variable} must be a ${kind === 'secret' ? 'sk_test_' : 'pk_test_'} key followed by 8-128 letters, digits or underscores.`,
    );
  }
}

/**
 * The default merchant, created on the first start. Pinned keys (SANDBANK_SECRET_KEY /
 * SANDBANK_PUBLIC_KEY) are made active for it; its other keys stay valid (roll keys to revoke them),
 * so several processes pinning different keys on one database never lock each other out.
 */
export async function ensureDefaultMerchant(
  db: Db,
  clock: Clock,
  pinned: Partial<KeyPair>,
): Promise<DefaultMerchant> {
  assertPinnedKey(pinned.secretKey, 'secret', 'SANDBANK_SECRET_KEY');
  assertPinnedKey(pinned.publicKey, 'public', 'SANDBANK_PUBLIC_KEY');
  const [existing] = await db.select().from(merchants).where(eq(merchants.isDefault, true)).limit(1);
  if (!existing) {
    let created: MerchantWithKeys;
    try {
      created = await createMerchant(db, clock, {
        name: 'Sandbank Demo Store',
        isDefault: true,
        keys: pinned,
      });
    } catch (error) {
      // Another instance bootstrapped the same empty database first: use its merchant.
      if (isUniqueViolation(error)) return ensureDefaultMerchant(db, clock, pinned);
      throw error;
    }
    return {
      merchant: created.merchant,
      secretKey: created.secretKey,
      publicKey: created.publicKey,
      secretKeyLast4: created.secretKey.slice(-4),
      publicKeyLast4: created.publicKey.slice(-4),
      created: true,
    };
  }
  const merchant = { id: existing.id, name: existing.name };
  await db.transaction(async (tx) => {
    for (const [kind, key] of [
      ['secret', pinned.secretKey],
      ['public', pinned.publicKey],
    ] as const) {
      if (key !== undefined) await pinKey(tx, merchant.id, kind, key, clock.now());
    }
  });
  const active = await db
    .select({ kind: apiKeys.kind, last4: apiKeys.last4 })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchant.id), isNull(apiKeys.revokedAt)));
  const last4 = (kind: KeyKind) => active.find((row) => row.kind === kind)?.last4 ?? '????';
  return {
    merchant,
    secretKey: pinned.secretKey ?? null,
    publicKey: pinned.publicKey ?? null,
    secretKeyLast4: last4('secret'),
    publicKeyLast4: last4('public'),
    created: false,
  };
}

async function pinKey(
  exec: Executor,
  merchantId: string,
  kind: KeyKind,
  key: string,
  at: Date,
): Promise<void> {
  const keyHash = hashKey(key);
  const [row] = await exec.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
  if (row && row.merchantId !== merchantId)
    throw new Error(`The pinned ${kind} key belongs to another merchant.`);
  if (!row) await insertKey(exec, merchantId, kind, key, at);
  else if (row.revokedAt) await exec.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, row.id));
  forgetCachedKeys();
}

/**
 * Issues a new key pair for a merchant and revokes its previous keys at once. Every dashboard
 * session of the merchant ends with them (but `keepSession`, the browser that asked for the roll),
 * and every instance closes the live connections that authenticated with what was revoked.
 */
export async function rollKeys(
  db: Db,
  clock: Clock,
  merchantId: string,
  options: { keepSession?: string } = {},
): Promise<KeyPair> {
  const secretKey = generateKey('secret');
  const publicKey = generateKey('public');
  const at = clock.now();
  await db.transaction(async (tx) => {
    const [merchant] = await tx
      .select({ id: merchants.id })
      .from(merchants)
      .where(eq(merchants.id, merchantId));
    if (!merchant) throw new SandbankError('resource_not_found', { message: `No merchant ${merchantId}.` });
    await tx
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt)));
    await insertKey(tx, merchantId, 'secret', secretKey, at);
    await insertKey(tx, merchantId, 'public', publicKey, at);
    await endDashboardAccess(tx, merchantId, at, options.keepSession);
    await announceCredentialChange(tx, merchantId);
  });
  forgetCachedKeys();
  return { secretKey, publicKey };
}

export async function getDefaultMerchant(db: Db): Promise<MerchantRef | null> {
  const [row] = await db
    .select({ id: merchants.id, name: merchants.name })
    .from(merchants)
    .where(eq(merchants.isDefault, true))
    .limit(1);
  return row ?? null;
}

export async function getMerchant(db: Db, id: string): Promise<MerchantRef | null> {
  const [row] = await db
    .select({ id: merchants.id, name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, id))
    .limit(1);
  return row ?? null;
}

export interface Principal {
  merchant: MerchantRef;
  keyKind: KeyKind;
}

interface CachedKey {
  principal: Principal | null;
  expiresAt: number;
}

/**
 * Found keys are cached in-process for two seconds (unknown keys are never cached): rolling or
 * pinning keys in this process clears the cache at once; a key revoked by another instance or the
 * CLI stops working within two seconds.
 */
const KEY_CACHE_MS = 2_000;
const KEY_CACHE_MAX = 10_000;
const keyCache = new Map<string, CachedKey>();

export function forgetCachedKeys(): void {
  keyCache.clear();
}

/**
 * The one authentication used by the REST middleware and the GraphQL context. Takes the raw
 * Authorization header value and returns the merchant and key kind, or throws 401.
 */
export async function authenticate(db: Db, authorization: string | null | undefined): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const key = match?.[1];
  if (!key) throw new SandbankError('api_key_missing');
  const keyKind = keyKindOf(key);
  if (!keyKind) {
    throw new SandbankError('api_key_missing', {
      message: 'The Authorization header must be "Bearer sk_test_..." or "Bearer pk_test_...".',
    });
  }
  const keyHash = hashKey(key);
  const now = systemClock.now().getTime(); // cache bookkeeping, not business time
  const cached = keyCache.get(keyHash);
  let principal: Principal | null;
  if (cached && cached.expiresAt > now) {
    principal = cached.principal;
  } else {
    principal = await lookupKey(db, keyHash);
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    if (principal) keyCache.set(keyHash, { principal, expiresAt: now + KEY_CACHE_MS });
  }
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

/**
 * Rolling keys is never replayed: a stored answer would hold a secret key, and a retry that rolls
 * again simply answers with the newer pair.
 */
export function refuseIdempotentRoll(idempotencyKey: string | null | undefined): void {
  if (idempotencyKey)
    throw new SandbankError('idempotency_key_invalid', {
      message: 'Rolling keys takes no Idempotency-Key (its answer holds a secret key and is never stored).',
    });
}
