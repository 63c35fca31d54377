import { defineModule } from '../module.ts';
import { EXPIRE_FX_QUOTE_JOB, expireQuoteJob } from './fx.quotes.ts';
import { registerFxRoutes } from './fx.routes.ts';
import { paySettlementJob } from './fx.settle.ts';
import { PAY_FX_SETTLEMENT_JOB } from './fx.settlements.ts';
import { fxConversions, fxQuotes, fxSettlements } from './fx.table.ts';

/** FX: rates on the clock, quotes, conversions, settlements abroad. */
export default defineModule({
  name: 'fx',
  tables: [fxQuotes, fxConversions, fxSettlements],
  ids: ['fxQuote', 'fxConversion', 'fxSettlement'],
  routes: registerFxRoutes,
  graphql: async () => {
    await import('./fx.graphql.ts');
    await import('./fx.graphql-mutations.ts');
  },
  jobs: {
    [EXPIRE_FX_QUOTE_JOB]: expireQuoteJob,
    [PAY_FX_SETTLEMENT_JOB]: paySettlementJob,
  },
});
