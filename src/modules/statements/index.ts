import { defineModule } from '../module.ts';
import { statementOperations } from './statements.operations.ts';
import { statementRecipes } from './statements.recipes.ts';
import { StatementWire } from './statements.resource.ts';
import { statements } from './statements.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { statement: 'stmt' } as const;
type StatementsIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends StatementsIds {}
}

/** Bank statements of the merchant's accounts: prior-day (BAI2, camt.053) and intraday (BAI2, camt.052). */
export default defineModule({
  name: 'statements',
  tables: [statements],
  ids,
  operations: statementOperations,
  graphql: () => import('./statements.graphql.ts'),
  recipes: statementRecipes,
  reset: [{ kind: 'statements', table: 'statements', order: 260, description: 'Statements.' }],
  events: [{ object: 'statement', machines: [], createdEvent: true, wire: StatementWire, order: 320 }],
});
