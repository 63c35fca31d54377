import { builder } from './builder.ts';

/** What every transaction object's row has (collections, card payments, transfers, payouts; others later). */
export interface TransactionShape {
  id: string;
  state: string;
  amount: bigint;
  currency: string;
  reference: string | null;
  createdAt: Date;
}

/**
 * The Transaction interface, which each kind's object type names among its interfaces. The
 * transactions module, which knows every kind and state, implements it
 * (transactions.graphql-interface.ts), so the kit names no module.
 */
export const TransactionRef = builder.interfaceRef<TransactionShape>('Transaction');
