import { defineModule } from '../module.ts';
import { FUNDS_AVAILABLE_JOB, releasePendingFunds } from './ledger.funds.ts';
import { holdMachine, postingMachine } from './ledger.machine.ts';
import { ledgerOperations } from './ledger.operations.ts';
import { ledgerRecipes } from './ledger.recipes.ts';
import { BalanceTransactionWire } from './ledger.resource.ts';
import { ledgerAccounts, ledgerEntries, ledgerPostings } from './ledger.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { posting: 'btx', ledgerEntry: 'le', ledgerAccount: 'la' } as const;
type LedgerIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends LedgerIds {}
}

/** The ledger: accounts, postings, entries; holds, reversals, funds release; balances. */
export default defineModule({
  name: 'ledger',
  tables: [ledgerAccounts, ledgerPostings, ledgerEntries],
  ids,
  operations: ledgerOperations,
  graphql: () => import('./ledger.graphql.ts'),
  jobs: { [FUNDS_AVAILABLE_JOB]: releasePendingFunds },
  recipes: ledgerRecipes,
  reset: [
    {
      kind: 'ledger_accounts',
      table: 'ledger_accounts',
      order: 160,
      description: 'Ledger accounts (the balances start again from nothing).',
    },
    { kind: 'ledger_postings', table: 'ledger_postings', order: 170, description: 'Ledger postings.' },
    { kind: 'ledger_entries', table: 'ledger_entries', order: 180, description: 'Ledger entries.' },
  ],
  events: [
    {
      object: 'balance_transaction',
      machines: [holdMachine, postingMachine],
      createdEvent: true,
      wire: BalanceTransactionWire,
      order: 80,
    },
  ],
});
