import { and, desc, eq, isNull } from 'drizzle-orm';
import { type Db, type Executor, isUniqueViolation } from '../../db/client.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { MerchantRef } from '../context.ts';
import { forgetCachedKeys } from './authentication.ts';
import { hashKey, type KeyKind, keyKindOf } from './keys.ts';
import { createMerchant, insertKey, type KeyPair, type MerchantWithKeys } from './merchants.service.ts';
import { apiKeys, merchants } from './merchants.table.ts';

export interface DefaultMerchant {
  merchant: MerchantRef;
  /**
   * The active keys in full: newly created, pinned by the environment, or read back from the
   * database (keys are kept whole, docs/internals/secret-keys.md). Null only for a secret key made before
   * that, of which just the hash and last 4 characters were stored.
   */
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
  // Newest first: with several active keys (pinned by different processes), the latest one made.
  const active = await db
    .select({
      kind: apiKeys.kind,
      last4: apiKeys.last4,
      secretKey: apiKeys.secretKey,
      publicKey: apiKeys.publicKey,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.merchantId, merchant.id), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const newest = (kind: KeyKind) => active.find((row) => row.kind === kind);
  const secretKey = pinned.secretKey ?? newest('secret')?.secretKey ?? null;
  const publicKey = pinned.publicKey ?? newest('public')?.publicKey ?? null;
  return {
    merchant,
    secretKey,
    publicKey,
    secretKeyLast4: secretKey?.slice(-4) ?? newest('secret')?.last4 ?? '????',
    publicKeyLast4: publicKey?.slice(-4) ?? newest('public')?.last4 ?? '????',
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
  else if (row.revokedAt || (kind === 'secret' && row.secretKey === null)) {
    // Pinned again: active, and (a secret key made before keys were kept whole) revealable from now on.
    await exec
      .update(apiKeys)
      .set({ revokedAt: null, ...(kind === 'secret' ? { secretKey: key } : {}) })
      .where(eq(apiKeys.id, row.id));
  }
  forgetCachedKeys();
}
