import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { type Db, type Executor, queryRows } from '../../db/client.ts';
import { type Clock, systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { MerchantRef } from '../context.ts';
import { authenticate, requireSecretKey } from '../merchants/authentication.ts';
import { announceCredentialChange } from '../merchants/credentials.ts';
import { hashKey } from '../merchants/keys.ts';
import { getMerchant } from '../merchants/merchants.service.ts';
import { dashboardSessions, dashboardSignInLinks } from './dashboard.table.ts';

/**
 * Dashboard sign-in: a session per browser, opened with the secret key or a one-time
 * link. Sessions and links live in real time (they are not business time): a session lasts
 * SESSION_HOURS, a link LINK_HOURS and one use. Tokens are 256 random bits; only hashes are stored.
 */
export const SESSION_HOURS = 12;
/** The cookie that carries a dashboard session (the dashboard sets it; graphql-ws reads it). */
export const DASHBOARD_SESSION_COOKIE = 'sandbank_session';
const LINK_HOURS = 24;
const HOUR_MS = 3_600_000;

export interface DashboardSession {
  merchant: MerchantRef;
  csrfToken: string;
  expiresAt: Date;
}

/** A new random token (URL- and cookie-safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A one-time sign-in link's token for the merchant, valid LINK_HOURS. */
export async function createSignInLink(db: Db, clock: Clock, merchantId: string): Promise<string> {
  const token = newToken();
  const now = clock.now();
  await db.insert(dashboardSignInLinks).values({
    tokenHash: hashKey(token),
    merchantId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LINK_HOURS * HOUR_MS),
  });
  return token;
}

async function openSession(
  db: Db,
  clock: Clock,
  merchant: MerchantRef,
): Promise<{ token: string; session: DashboardSession }> {
  const token = newToken();
  const now = clock.now();
  const session = {
    merchant,
    csrfToken: newToken(),
    expiresAt: new Date(now.getTime() + SESSION_HOURS * HOUR_MS),
  };
  await db.insert(dashboardSessions).values({
    tokenHash: hashKey(token),
    merchantId: merchant.id,
    csrfToken: session.csrfToken,
    createdAt: now,
    expiresAt: session.expiresAt,
  });
  return { token, session };
}

/** Signs in with a pasted secret key (401 for anything else, 403 for a public key). */
export async function signInWithKey(db: Db, clock: Clock, key: string) {
  const principal = await authenticate(db, `Bearer ${key.trim()}`);
  requireSecretKey(principal);
  return openSession(db, clock, principal.merchant);
}

/** Signs in with a one-time link: used once, within its lifetime (else 401 sign_in_link_invalid). */
export async function signInWithLink(db: Db, clock: Clock, token: string) {
  const now = clock.now();
  const [link] = await db
    .update(dashboardSignInLinks)
    .set({ usedAt: now })
    .where(
      and(
        eq(dashboardSignInLinks.tokenHash, hashKey(token)),
        isNull(dashboardSignInLinks.usedAt),
        gt(dashboardSignInLinks.expiresAt, now),
      ),
    )
    .returning();
  const merchant = link ? await getMerchant(db, link.merchantId) : null;
  if (!merchant) throw new SandbankError('sign_in_link_invalid');
  return openSession(db, clock, merchant);
}

/** Opens a session for a merchant the caller has just created (the sign-up page). */
export function signInNewMerchant(db: Db, clock: Clock, merchant: MerchantRef) {
  return openSession(db, clock, merchant);
}

/** The live session of a cookie token, or null (unknown, ended or expired). */
export async function sessionFor(db: Db, clock: Clock, token: string): Promise<DashboardSession | null> {
  if (token.length < 16 || token.length > 100) return null;
  const [row] = await db
    .select()
    .from(dashboardSessions)
    .where(
      and(
        eq(dashboardSessions.tokenHash, hashKey(token)),
        isNull(dashboardSessions.endedAt),
        gt(dashboardSessions.expiresAt, clock.now()),
      ),
    )
    .limit(1);
  const merchant = row ? await getMerchant(db, row.merchantId) : null;
  if (!row || !merchant) return null;
  return { merchant, csrfToken: row.csrfToken, expiresAt: row.expiresAt };
}

/** The merchant whose live session a cookie token is, or null: the credential watch's check of a session. */
export async function sessionMerchantOf(db: Db, token: string): Promise<string | null> {
  return (await sessionFor(db, systemClock, token))?.merchant.id ?? null;
}

/** Signs out: the session ends at once, and so do the live connections it opened (on any instance). */
export async function endSession(db: Db, clock: Clock, token: string): Promise<void> {
  await db.transaction(async (tx) => {
    const ended = await tx
      .update(dashboardSessions)
      .set({ endedAt: clock.now() })
      .where(and(eq(dashboardSessions.tokenHash, hashKey(token)), isNull(dashboardSessions.endedAt)))
      .returning({ merchantId: dashboardSessions.merchantId });
    for (const { merchantId } of ended) await announceCredentialChange(tx, merchantId);
  });
}

/** The cookie header's dashboard session token, if any. */
export function sessionTokenOf(cookieHeader: string | undefined): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === DASHBOARD_SESSION_COOKIE) return value.join('=') || null;
  }
  return null;
}

/** Ended or expired sessions, and used or expired sign-in links, are deleted a day (real time) later. */
export const ENDED_SIGN_IN_RETENTION_HOURS = 24;

/**
 * Retention (real time): deletes up to `limit` sessions that ended or expired, and then sign-in
 * links that were used or expired, ENDED_SIGN_IN_RETENTION_HOURS before `realNow`. Returns how many.
 */
export async function purgeEndedSignIns(db: Db, realNow: Date, limit: number): Promise<number> {
  const cutoff = new Date(realNow.getTime() - ENDED_SIGN_IN_RETENTION_HOURS * HOUR_MS).toISOString();
  const sessions = await queryRows(
    db,
    sql`DELETE FROM dashboard_sessions WHERE token_hash IN (
      SELECT token_hash FROM dashboard_sessions
      WHERE LEAST(COALESCE(ended_at, expires_at), expires_at) <= ${cutoff}::timestamptz LIMIT ${limit})
    RETURNING 1`,
  );
  if (sessions.length >= limit) return sessions.length;
  const links = await queryRows(
    db,
    sql`DELETE FROM dashboard_sign_in_links WHERE token_hash IN (
      SELECT token_hash FROM dashboard_sign_in_links
      WHERE LEAST(COALESCE(used_at, expires_at), expires_at) <= ${cutoff}::timestamptz
      LIMIT ${limit - sessions.length})
    RETURNING 1`,
  );
  return sessions.length + links.length;
}

/**
 * Ends every dashboard session of the merchant but the one whose token is `keep` (the browser
 * that rolled the keys), and voids its unused sign-in links: whoever signed in with a key that is
 * now revoked is signed out with it. Run in a key roll's transaction (registered on the merchants'
 * onKeysRolled, modules/reactions.ts).
 */
export async function endDashboardAccess(
  exec: Executor,
  merchantId: string,
  at: Date,
  keep?: string,
): Promise<void> {
  await exec
    .update(dashboardSessions)
    .set({ endedAt: at })
    .where(
      and(
        eq(dashboardSessions.merchantId, merchantId),
        isNull(dashboardSessions.endedAt),
        ...(keep ? [ne(dashboardSessions.tokenHash, hashKey(keep))] : []),
      ),
    );
  await exec
    .update(dashboardSignInLinks)
    .set({ usedAt: at })
    .where(and(eq(dashboardSignInLinks.merchantId, merchantId), isNull(dashboardSignInLinks.usedAt)));
}
