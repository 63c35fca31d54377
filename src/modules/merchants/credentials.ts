import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { dashboardSessions, dashboardSignInLinks } from '../dashboard/dashboard.table.ts';
import { hashKey } from './keys.ts';

/**
 * The channel on which a change of a merchant's credentials (keys rolled, a dashboard session
 * ended) is announced, in the transaction that makes it: every instance LISTENing on the database
 * hears it after commit, forgets its cached keys and re-checks its live connections at once.
 */
export const CREDENTIALS_CHANNEL = 'sandbank_credentials';

export async function announceCredentialChange(exec: Executor, merchantId: string): Promise<void> {
  await exec.execute(sql`SELECT pg_notify(${CREDENTIALS_CHANNEL}, ${merchantId})`);
}

/**
 * Ends every dashboard session of the merchant but the one whose token is `keep` (the browser
 * that rolled the keys), and voids its unused sign-in links: whoever signed in with a key that is
 * now revoked is signed out with it.
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
