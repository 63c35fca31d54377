import { defineModule } from '../module.ts';
import { FUNDS_AVAILABLE_JOB, releasePendingFunds } from './ledger.funds.ts';
import { registerLedgerRoutes } from './ledger.routes.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

/** The ledger: accounts, postings, entries; holds, reversals, funds release; balances. */
export default defineModule({
  name: 'ledger',
  tables: [ledgerAccounts, ledgerPostings, ledgerEntries],
  ids: ['posting', 'ledgerEntry', 'ledgerAccount'],
  routes: registerLedgerRoutes,
  graphql: () => import('./ledger.graphql.ts'),
  jobs: { [FUNDS_AVAILABLE_JOB]: releasePendingFunds },
});
