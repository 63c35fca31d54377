import type { MiddlewareHandler } from 'hono';
import type { HtmlEscapedString } from 'hono/utils/html';
import { type AppDeps, processContextOf } from '../deps.ts';
import type { MerchantRef, ServiceContext } from '../modules/context.ts';

type HtmlPage = HtmlEscapedString | Promise<HtmlEscapedString>;

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
  return { ...processContextOf(deps), clock: await deps.clockFor(merchant.id), merchant };
}

/** The variables of a public page's routes once `openByLink` let the request through. */
export type PayerEnv = {
  Variables: { deps: AppDeps; payer: ServiceContext; linkId: string; linkSecret: string };
};

/**
 * The gate of every route under a public page's link (`/:id` and below, GET and POST alike): the
 * link names an object and carries its secret (`?secret=`); `findMerchant` answers the object's
 * merchant only when the secret is the object's. Anything else — an unknown id, no secret, a wrong
 * one — gets the same 404 page, so the answer never tells whether an id exists.
 */
export function openByLink(
  findMerchant: (
    db: AppDeps['database']['db'],
    id: string,
    secret: string | undefined,
  ) => Promise<MerchantRef | null>,
  notFound: () => HtmlPage,
): MiddlewareHandler<PayerEnv> {
  return async (c, next) => {
    const id = c.req.param('id') ?? '';
    const secret = c.req.query('secret');
    const payer = await publicPageContext(c.get('deps'), (db) => findMerchant(db, id, secret));
    if (!payer || secret === undefined) return c.html(notFound(), 404);
    c.set('payer', payer);
    c.set('linkId', id);
    c.set('linkSecret', secret);
    await next();
  };
}
