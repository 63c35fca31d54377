import { inputFor, registerObjectType } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { settlementsQuery } from '../fx/fx.schema.ts';
import { listPayoutsQuery, listTransfersQuery } from '../transfers/transfers.schema.ts';
import './transactions.graphql-interface.ts';
import { transactionOperations } from './transactions.operations.ts';
import { TransactionKindValues, TransactionStateValues } from './transactions.states.ts';

// The Transaction interface (each kind's object implements it) and the filters' enums: a state
// filter of any transaction list (this one, transfers', payouts', settlements') is a TransactionState.
registerObjectType('Transaction', TransactionRef);
registerObjectType('TransactionKind', enumOf(TransactionKindValues));
registerObjectType('TransactionState', enumOf(TransactionStateValues));
for (const state of [listTransfersQuery.state, listPayoutsQuery.state, settlementsQuery.shape.state])
  inputFor(state.unwrap(), enumOf(TransactionStateValues));
mountGraphqlOperations(transactionOperations);
