import type { AppDeps } from '../deps.ts';
import type { MerchantRef, ServiceContext } from '../modules/context.ts';

/**
 * The service context of a public page (checkout, 3-D Secure): no API key, the link is the payer's
 * capability, and the page acts for the merchant `findMerchant` names for it.
 */
export async function publicPageContext(
  deps: AppDeps,
  findMerchant: (db: AppDeps['database']['db']) => Promise<MerchantRef | null>,
): Promise<ServiceContext | null> {
  const merchant = await findMerchant(deps.database.db);
  if (!merchant) return null;
  return {
    db: deps.database.db,
    clock: await deps.clockFor(merchant.id),
    merchant,
    publicUrl: deps.publicUrl,
  };
}
