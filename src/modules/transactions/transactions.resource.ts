import { z } from 'zod';
import type { Wire } from '../../kernel/wire-resources.ts';
import { CardPaymentWire, cardPaymentResource } from '../card-payments/card-payments.resource.ts';
import { CollectionWire, collectionResource } from '../collections/collections.resource.ts';
import {
  FxConversionWire,
  FxSettlementWire,
  fxConversionResource,
  fxSettlementResource,
} from '../fx/fx.resource.ts';
import { IssuingAuthorizationWire, issuingAuthorizationResource } from '../issuing/issuing.resource.ts';
import type { OutputDecl } from '../operation.ts';
import {
  PayoutWire,
  payoutResource,
  TransferWire,
  transferResource,
} from '../transfers/transfers.resource.ts';
import {
  type TransactionKind,
  type TransactionRow,
  type TypedTransaction,
  typedTransaction,
} from './transactions.service.ts';

/** The object of a kind, with `kind` (the same name as its `object`) beside its fields. */
const ofKind = <const K extends TransactionKind, S extends z.ZodType>(kind: K, wire: S) =>
  z.intersection(
    wire,
    z.object({
      kind: z.literal(kind).meta({ description: 'The kind of transaction (the same as object).' }),
    }),
  );

export const TransactionWire = z
  .union([
    ofKind('collection', CollectionWire),
    ofKind('card_payment', CardPaymentWire),
    ofKind('transfer', TransferWire),
    ofKind('payout', PayoutWire),
    ofKind('issuing_authorization', IssuingAuthorizationWire),
    ofKind('fx_conversion', FxConversionWire),
    ofKind('fx_settlement', FxSettlementWire),
  ])
  .meta({
    id: 'Transaction',
    description:
      'A money movement of any kind, as its own kind renders it (a Collection, CardPayment, Transfer, Payout, IssuingAuthorization, FxConversion or FxSettlement), with `kind` beside its fields.',
  });

/** A transaction as its own kind's resource renders it, with `kind` beside its fields. */
export function transactionResource(tx: TypedTransaction, publicUrl: string): Wire<typeof TransactionWire> {
  switch (tx.kind) {
    case 'collection':
      return { ...collectionResource(tx.row, publicUrl), kind: tx.kind };
    case 'card_payment':
      return { ...cardPaymentResource(tx.row, tx.row.refunds, publicUrl), kind: tx.kind };
    case 'transfer':
      return { ...transferResource(tx.row), kind: tx.kind };
    case 'payout':
      return { ...payoutResource(tx.row), kind: tx.kind };
    case 'issuing_authorization':
      return { ...issuingAuthorizationResource(tx.row), kind: tx.kind };
    case 'fx_conversion':
      return { ...fxConversionResource(tx.row), kind: tx.kind };
    case 'fx_settlement':
      return { ...fxSettlementResource(tx.row), kind: tx.kind };
  }
}

/** What the transaction operations answer: a row of any kind, rendered as its kind renders it. */
export const Transaction: OutputDecl = {
  name: 'Transaction',
  wire: TransactionWire,
  render: (row: TransactionRow, rc) => transactionResource(typedTransaction(row), rc.publicUrl),
};
