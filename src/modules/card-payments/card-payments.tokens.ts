import { and, eq, isNull, sql } from 'drizzle-orm';
import { type Db, queryRows, type Tx } from '../../db/client.ts';
import { inTransaction } from '../../db/tx.ts';
import { addSeconds } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { type ValidCard, validateCard } from '../cards/card-validation.ts';
import { perMerchant } from '../clock/clock.sql.ts';
import type { ServiceContext } from '../context.ts';
import { type JobRow, scheduleJob } from '../scheduler/scheduler.service.ts';
import type { TokenRow } from './card-payments.resource.ts';
import type { CreateTokenInput } from './card-payments.schema.ts';
import { cardTokens } from './card-payments.table.ts';

/** A token is usable once within 15 minutes of clock time. */
export const TOKEN_TTL_SECONDS = 15 * 60;

/** A token's expiry: an unused token's number and CVC are blanked when its 15 minutes are over. */
export const TOKEN_EXPIRY_JOB = 'token.expire';

export async function createToken(ctx: ServiceContext, input: CreateTokenInput): Promise<TokenRow> {
  const card = validateCard(input.card);
  const now = ctx.clock.now();
  const expiresAt = addSeconds(now, TOKEN_TTL_SECONDS);
  return inTransaction(ctx.db, ctx.tx, async (tx) => {
    const [row] = await tx
      .insert(cardTokens)
      .values({
        id: newId('token'),
        merchantId: ctx.merchant.id,
        number: card.number,
        expMonth: card.expMonth,
        expYear: card.expYear,
        cvc: card.cvc,
        name: card.name,
        brand: card.brand,
        last4: card.last4,
        expiresAt,
        createdAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await scheduleJob(tx, {
      merchantId: ctx.merchant.id,
      kind: TOKEN_EXPIRY_JOB,
      objectId: row.id,
      dueAt: expiresAt,
      createdAt: now,
    });
    return row;
  });
}

/** What a token keeps of its card once spent or expired: neither the number nor the CVC. */
const blankSecrets = { number: '', cvc: '' } as const;

/** The scheduled expiry of a token: its card number and CVC are not kept past its 15 minutes. */
export async function expireTokenJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  await ctx.tx
    .update(cardTokens)
    .set(blankSecrets)
    .where(and(eq(cardTokens.id, job.objectId), eq(cardTokens.merchantId, ctx.merchant.id)));
}

/**
 * The retention sweep behind the expiry jobs (tokens older than those jobs have none): blanks the
 * secrets of up to `limit` unused tokens expired by their merchant's clock. Returns how many.
 */
export async function blankExpiredTokens(db: Db, realNow: Date, limit: number): Promise<number> {
  const doomed = perMerchant(
    realNow,
    (now) => sql`SELECT t.id FROM card_tokens t
      WHERE t.merchant_id = m.id AND t.number <> '' AND t.expires_at <= ${now}`,
    limit,
  );
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE card_tokens d SET number = '', cvc = '' FROM (${doomed}) x WHERE d.id = x.id RETURNING d.id`,
  );
  return rows.length;
}

/** Spends a token (once, before it expires) and gives back its card. */
export async function spendToken(tx: Tx, ctx: ServiceContext, tokenId: string): Promise<ValidCard> {
  const now = ctx.clock.now();
  if (tokenId.includes('\u0000')) throw new SandbankError('resource_not_found', { param: 'token' });
  const [token] = await tx
    .select()
    .from(cardTokens)
    .where(and(eq(cardTokens.id, tokenId), eq(cardTokens.merchantId, ctx.merchant.id)));
  if (!token)
    throw new SandbankError('resource_not_found', {
      param: 'token',
      message: `No token ${tokenId.slice(0, 64)}.`,
    });
  if (token.usedAt) throw new SandbankError('token_already_used', { param: 'token' });
  if (token.expiresAt <= now) throw new SandbankError('token_expired', { param: 'token' });
  // Spent: the number and CVC are not kept a moment longer than the payment needs them.
  const spent = await tx
    .update(cardTokens)
    .set({ usedAt: now, ...blankSecrets })
    .where(and(eq(cardTokens.id, token.id), isNull(cardTokens.usedAt)))
    .returning({ id: cardTokens.id });
  if (spent.length === 0) throw new SandbankError('token_already_used', { param: 'token' });
  return {
    number: token.number,
    brand: token.brand as ValidCard['brand'],
    last4: token.last4,
    expMonth: token.expMonth,
    expYear: token.expYear,
    cvc: token.cvc,
    name: token.name,
  };
}
