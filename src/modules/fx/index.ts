import { defineModule } from '../module.ts';
import { fxQuoteMachine, fxSettlementMachine } from './fx.machine.ts';
import { fxOperations } from './fx.operations.ts';
import { EXPIRE_FX_QUOTE_JOB, expireQuoteJob } from './fx.quotes.ts';
import { fxRecipes, settlementRecipes } from './fx.recipes.ts';
import { FxConversionWire, FxQuoteWire, FxSettlementWire } from './fx.resource.ts';
import { paySettlementJob } from './fx.settle.ts';
import { PAY_FX_SETTLEMENT_JOB } from './fx.settlements.ts';
import { fxConversions, fxQuotes, fxSettlements } from './fx.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { fxQuote: 'fxq', fxConversion: 'fxc', fxSettlement: 'fxs' } as const;
type FxIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends FxIds {}
}

/** FX: rates on the clock, quotes, conversions, settlements abroad. */
export default defineModule({
  name: 'fx',
  tables: [fxQuotes, fxConversions, fxSettlements],
  ids,
  operations: fxOperations,
  graphql: () => import('./fx.graphql.ts'),
  jobs: {
    [EXPIRE_FX_QUOTE_JOB]: expireQuoteJob,
    [PAY_FX_SETTLEMENT_JOB]: paySettlementJob,
  },
  recipes: [...fxRecipes, ...settlementRecipes],
  reset: [
    { kind: 'fx_quotes', table: 'fx_quotes', order: 130, lock: true, description: 'FX quotes.' },
    {
      kind: 'fx_conversions',
      table: 'fx_conversions',
      order: 140,
      lock: true,
      description: 'FX conversions.',
    },
    {
      kind: 'fx_settlements',
      table: 'fx_settlements',
      order: 150,
      lock: true,
      description: 'FX settlements abroad.',
    },
  ],
  events: [
    { object: 'fx_quote', machines: [fxQuoteMachine], createdEvent: true, wire: FxQuoteWire, order: 110 },
    {
      object: 'fx_conversion',
      machines: [],
      createdEvent: false,
      also: ['completed'],
      wire: FxConversionWire,
      order: 120,
    },
    {
      object: 'fx_settlement',
      machines: [fxSettlementMachine],
      createdEvent: true,
      wire: FxSettlementWire,
      order: 130,
    },
  ],
});
