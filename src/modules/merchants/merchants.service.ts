import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import type { Clock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { MerchantRef } from '../context.ts';
import { forgetCachedKeys } from './authentication.ts';
import { afterKeysRolled, announceCredentialChange } from './credentials.ts';
import { generateKey, hashKey, type KeyKind } from './keys.ts';
import type { SignUpInput } from './merchants.schema.ts';
import { apiKeys, merchants } from './merchants.table.ts';
import type { SignupLimiter } from './signups.ts';

/**
 * Merchants and their keys: creating one (and the keyless sign-up), reading one, listing and
 * rolling its keys. The default merchant of a start is in default-merchant.ts, checking a key in
 * authentication.ts.
 */

export interface KeyPair {
  secretKey: string;
  publicKey: string;
}

export interface MerchantWithKeys extends KeyPair {
  merchant: MerchantRef;
}

const NAME_MAX = 100;

function validName(name: string): string {
  if (name.trim().length === 0 || name.trim().length > NAME_MAX) {
    throw new SandbankError('parameter_invalid', {
      param: 'name',
      message: `A merchant name is 1-${NAME_MAX} characters.`,
    });
  }
  return name.trim();
}

export async function insertKey(
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
    secretKey: kind === 'secret' ? key : null,
    createdAt: at,
  });
}

export interface ActiveKey {
  kind: KeyKind;
  last4: string;
  /** The whole key, for a public key created since keys are kept so (null for secret keys). */
  publicKey: string | null;
  /**
   * The whole key, for a secret key made since they are kept retrievably (the dashboard's Reveal);
   * null for public keys and for older secret keys, of which only the hash was stored.
   */
  secretKey: string | null;
  createdAt: Date;
}

/** The merchant's keys in use, newest first (the dashboard's keys page). */
export async function activeKeys(db: Db, merchantId: string): Promise<ActiveKey[]> {
  return db
    .select({
      kind: apiKeys.kind,
      last4: apiKeys.last4,
      publicKey: apiKeys.publicKey,
      secretKey: apiKeys.secretKey,
      createdAt: apiKeys.createdAt,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt));
}

/**
 * Creates a merchant with a fresh (or pinned) key pair: looked up by their hashes, and kept whole
 * for the dashboard's Reveal (see docs/internals/secret-keys.md).
 */
export async function createMerchant(
  db: Db,
  clock: Clock,
  input: { name: string; isDefault?: boolean; keys?: Partial<KeyPair> },
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
  input: SignUpInput,
  limit: { signups?: SignupLimiter | undefined; address: string },
): Promise<MerchantWithKeys> {
  validName(input.name);
  limit.signups?.take(limit.address);
  return createMerchant(db, clock, input);
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
    await afterKeysRolled(tx, merchantId, at, options.keepSession);
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
