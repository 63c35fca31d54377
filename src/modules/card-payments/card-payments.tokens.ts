import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows, type Tx } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { perMerchant } from '../../db/per-merchant.ts';
import { addSeconds, realNowOf } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { type ValidCard, validateCard } from '../cards/card-validation.ts';
import type { ServiceContext } from '../context.ts';
import { type JobRow, jobValues } from '../scheduler/scheduler.service.ts';
import type { TokenRow } from './card-payments.resource.ts';
import type { CreateTokenInput } from './card-payments.schema.ts';
import { cardTokens } from './card-payments.table.ts';

/**
 * A token is usable once within 15 minutes of clock time, and within 15 minutes of real time: a
 * frozen (or slowly advanced) clock never keeps a card number longer than that.
 */
export const TOKEN_TTL_SECONDS = 15 * 60;

/** Whether a token's 15 minutes of real time are over at the real instant `realNow`. */
function expiredInRealTime(token: { realCreatedAt: Date }, realNow: Date): boolean {
  return addSeconds(token.realCreatedAt, TOKEN_TTL_SECONDS) <= realNow;
}

/** A token's expiry: an unused token's number and CVC are blanked when its 15 minutes are over. */
export const TOKEN_EXPIRY_JOB = 'token.expire';

/** POST /v1/tokens: a card kept for one use, and the job that blanks it when its time is over, as one change. */
export async function createToken(ctx: ServiceContext, input: CreateTokenInput): Promise<TokenRow> {
  const card = validateCard(input.card);
  const now = ctx.clock.now();
  const realCreatedAt = realNowOf(ctx.clock);
  const expiresAt = addSeconds(now, TOKEN_TTL_SECONDS);
  const row: TokenRow = {
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
    usedAt: null,
    createdAt: now,
    realCreatedAt,
  };
  const expiry = jobValues({
    merchantId: ctx.merchant.id,
    kind: TOKEN_EXPIRY_JOB,
    objectId: row.id,
    dueAt: expiresAt,
    createdAt: now,
  });
  await commit(ctx, change().insert(cardTokens, row).job(expiry));
  return row;
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
 * The retention sweep: blanks the secrets of up to `limit` unused tokens whose 15 minutes are over
 * in real time at `realNow` (whatever their merchant's clock says), then of those expired by their
 * merchant's clock that the expiry jobs missed (tokens older than those jobs have none). Returns how many.
 */
export async function blankExpiredTokens(db: Db, realNow: Date, limit: number): Promise<number> {
  const realCutoff = addSeconds(realNow, -TOKEN_TTL_SECONDS).toISOString();
  const byRealTime = sql`SELECT t.id FROM card_tokens t
    WHERE t.number <> '' AND t.real_created_at <= ${realCutoff}::timestamptz LIMIT ${limit}`;
  const blanked = (await blankTokens(db, byRealTime)).length;
  if (blanked >= limit) return blanked;
  const byClock = perMerchant(
    realNow,
    (now) => sql`SELECT t.id FROM card_tokens t
      WHERE t.merchant_id = m.id AND t.number <> '' AND t.expires_at <= ${now}`,
    limit - blanked,
  );
  return blanked + (await blankTokens(db, byClock)).length;
}

function blankTokens(db: Db, doomed: SQL): Promise<{ id: string }[]> {
  return queryRows<{ id: string }>(
    db,
    sql`UPDATE card_tokens d SET number = '', cvc = '' FROM (${doomed}) x WHERE d.id = x.id RETURNING d.id`,
  );
}

/**
 * Spends a token (once, before it expires by the merchant's clock or in real time) and gives back
 * its card. A token whose secrets were blanked is expired whether or not a clock says so yet.
 */
export async function spendToken(tx: Tx, ctx: ServiceContext, tokenId: string): Promise<ValidCard> {
  const now = ctx.clock.now();
  const realNow = realNowOf(ctx.clock);
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
  if (token.expiresAt <= now || expiredInRealTime(token, realNow) || token.number === '')
    throw new SandbankError('token_expired', { param: 'token' });
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
