import { registerObjectType } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { TransactionKindEnum, TransactionRef, TransactionStateEnum } from '../../graphql/transaction.ts';
import './transactions.graphql-interface.ts';
import { transactionOperations } from './transactions.operations.ts';

// The Transaction interface (each kind's object implements it) and the filters' enums.
registerObjectType('Transaction', TransactionRef);
registerObjectType('TransactionKind', TransactionKindEnum);
registerObjectType('TransactionState', TransactionStateEnum);
mountGraphqlOperations(transactionOperations);
