import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { at, createdAt } from '../../db/columns.ts';

/**
 * Signed-in browsers of the merchant dashboard. The cookie holds a random token; only its SHA-256
 * is stored (as API keys are), with the session's CSRF token and its real-time expiry.
 */
export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    endedAt: at('ended_at'),
  },
  (t) => [index('dashboard_sessions_merchant_idx').on(t.merchantId)],
);

/** One-time sign-in links (the start-up banner prints one for the default merchant). */
export const dashboardSignInLinks = pgTable('dashboard_sign_in_links', {
  tokenHash: text('token_hash').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  createdAt: createdAt(),
  expiresAt: at('expires_at').notNull(),
  usedAt: at('used_at'),
});
