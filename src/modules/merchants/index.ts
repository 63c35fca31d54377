import { defineModule } from '../module.ts';
import { merchantOperations } from './merchants.operations.ts';
import { registerMerchantRoutes } from './merchants.routes.ts';
import { apiKeys, merchants } from './merchants.table.ts';

/** Merchants: sign-up, API keys, authentication, the default merchant. */
export default defineModule({
  name: 'merchants',
  tables: [merchants, apiKeys],
  ids: ['merchant', 'apiKey'],
  operations: merchantOperations,
  // The keyless sign-up runs without a merchant: a hand-written route.
  routes: registerMerchantRoutes,
  graphql: () => import('./merchants.graphql.ts'),
});
