import { defineModule } from '../module.ts';
import { merchantOperations } from './merchants.operations.ts';
import { registerMerchantRoutes } from './merchants.routes.ts';
import { apiKeys, merchants } from './merchants.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { merchant: 'mch', apiKey: 'key' } as const;
type MerchantsIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends MerchantsIds {}
}

/** Merchants: sign-up, API keys, authentication, the default merchant. */
export default defineModule({
  name: 'merchants',
  tables: [merchants, apiKeys],
  ids,
  operations: merchantOperations,
  // The keyless sign-up runs without a merchant: a hand-written route.
  routes: registerMerchantRoutes,
  graphql: () => import('./merchants.graphql.ts'),
});
