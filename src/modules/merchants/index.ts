import { defineModule } from '../module.ts';
import { registerMerchantRoutes } from './merchants.routes.ts';
import { apiKeys, merchants } from './merchants.table.ts';

/** Merchants: sign-up, API keys, authentication, the default merchant. */
export default defineModule({
  name: 'merchants',
  tables: [merchants, apiKeys],
  ids: ['merchant', 'apiKey'],
  routes: registerMerchantRoutes,
  graphql: () => import('./merchants.graphql.ts'),
});
