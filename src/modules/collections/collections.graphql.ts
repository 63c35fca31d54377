import type { GraphQLContext } from '../../graphql/builder.ts';
import { builder } from '../../graphql/builder.ts';
import { idempotentMutation, serviceContext } from '../../graphql/context.ts';
import { graphqlObject } from '../../graphql/derive.ts';
import {
  BankAccountTypeEnum,
  enumOf,
  ThreeDSecureOutcomeEnum,
  type ThreeDSecureStatus,
  ThreeDSecureStatusEnum,
} from '../../graphql/enums.ts';
import { SandbankErrorRef } from '../../graphql/errors.ts';
import { CardInput } from '../../graphql/inputs.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { MoneyRef } from '../../graphql/scalars.ts';
import { CREATED_AT, IDEMPOTENCY_KEY, UPDATED_AT } from '../../graphql/texts.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { CardPaymentRef } from '../card-payments/card-payments.graphql.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { type CardBrand, CardBrandValues } from '../cards/card-numbers.ts';
import { TransferRef } from '../transfers/transfers.graphql.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { AchReturnCodeValues } from '../transfers/transfers.schema.ts';
import type { AttemptState } from './collections.machine.ts';
import { collectionOperations } from './collections.operations.ts';
import { loadPayResult, type PayResult, payCollection } from './collections.pay.ts';
import type { AttemptRow, CollectionRow } from './collections.resource.ts';
import { Collection } from './collections.resource.ts';
import {
  PaymentAttemptStateValues,
  PaymentMethodValues,
  payCollectionFieldCodes,
  payCollectionSchema,
} from './collections.schema.ts';
import {
  type CollectionDetail,
  collectionsByIds,
  getCollection,
  paymentAttemptsByIds,
} from './collections.service.ts';

const PaymentAttemptRef = builder.objectRef<AttemptRow>('PaymentAttempt').implement({
  description:
    'One attempt to pay a collection, made before bank payments became ACH debits (card payments and transfers record payments now).',
  interfaces: [NodeRef],
  fields: (t) => ({
    method: t.expose('method', { type: enumOf(PaymentMethodValues), description: 'How the payer paid.' }),
    state: t.field({
      type: enumOf(PaymentAttemptStateValues),
      description: 'Where it stands.',
      resolve: (row) => row.state as AttemptState,
    }),
    amount: t.field({
      type: MoneyRef,
      description: "The collection's amount.",
      resolve: (row) => ({ amount: row.amount, currency: row.currency as CurrencyCode }),
    }),
    cardBrand: t.field({
      type: enumOf(CardBrandValues),
      nullable: true,
      description: 'The card network (card method).',
      resolve: (row) => row.cardBrand as CardBrand | null,
    }),
    cardLast4: t.exposeString('cardLast4', {
      nullable: true,
      description: 'The last 4 digits of the card (card method).',
    }),
    threeDSecure: t.field({
      type: ThreeDSecureStatusEnum,
      nullable: true,
      description: 'The 3-D Secure challenge, when the card asked for one.',
      resolve: (row) => row.threeDSecure as ThreeDSecureStatus | null,
    }),
    networkResponseCode: t.exposeString('networkResponseCode', {
      nullable: true,
      description: 'The ISO 8583 response code of the card authorization.',
    }),
    declineCode: t.exposeString('declineCode', { nullable: true, description: 'Why the card was declined.' }),
    failureMessage: t.exposeString('failureMessage', {
      nullable: true,
      description: 'Why the attempt failed, for a person.',
    }),
    bankAccountLast4: t.exposeString('bankAccountLast4', {
      nullable: true,
      description: 'The last 4 digits of the bank account (bank_account method).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: CREATED_AT }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: UPDATED_AT }),
  }),
});

type CollectionNode = CollectionRow & {
  attempts?: AttemptRow[];
  debits?: TransferRow[];
  cardPayments?: CardPaymentDetail[];
};

const CollectionRef = graphqlObject<CollectionNode>(Collection, {
  interfaces: [NodeRef, TransactionRef],
  isTypeOf: (value: unknown) => hasPrefix((value as { id: string }).id, 'collection'),
  // The Transaction interface answers state (as a TransactionState).
  omit: ['state'],
  enums: { failure_code: enumOf(AchReturnCodeValues) },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    paymentAttempts: t.field({
      type: [PaymentAttemptRef],
      description:
        'Bank-account payment attempts made before bank payments became ACH debits (see transfers), newest first.',
      resolve: async (row: CollectionNode, _args: unknown, ctx: GraphQLContext) =>
        row.attempts ?? (await getCollection(serviceContext(ctx), row.id)).attempts,
    }),
    transfers: t.field({
      type: [TransferRef],
      description: "The checkout's bank-account payments: ACH debits of the payer's account, newest first.",
      resolve: async (row: CollectionNode, _args: unknown, ctx: GraphQLContext) =>
        row.debits ?? (await getCollection(serviceContext(ctx), row.id)).debits,
    }),
    cardPayments: t.field({
      type: [CardPaymentRef],
      description: "The checkout's card payments, newest first, each with its decline code if declined.",
      resolve: async (row: CollectionNode, _args: unknown, ctx: GraphQLContext) =>
        row.cardPayments ?? (await getCollection(serviceContext(ctx), row.id)).cardPayments,
    }),
  }),
});

nodeKind('collection', CollectionRef, collectionsByIds);
nodeKind('paymentAttempt', PaymentAttemptRef, paymentAttemptsByIds);

const BankAccountInput = builder.inputType('BankAccountInput', {
  description: "The payer's US bank account, debited by ACH.",
  fields: (t) => ({
    name: t.string({ description: "The account holder's name." }),
    routingNumber: t.string({
      required: true,
      description: 'The ABA routing number (9 digits, checksummed).',
    }),
    accountNumber: t.string({ required: true, description: 'The account number (4-17 digits).' }),
    accountType: t.field({ type: BankAccountTypeEnum, description: 'checking (default) or savings.' }),
  }),
});

mountGraphqlOperations(collectionOperations);

const PayResultRef = builder
  .objectRef<{
    collection: CollectionDetail | CollectionRow;
    attempt: AttemptRow | null;
    cardPayment: CardPaymentRow | null;
    debit: TransferRow | null;
    nextActionUrl: string | null;
  }>('CollectionPayment')
  .implement({
    description: 'A headless payment of a collection and what it made.',
    fields: (t) => ({
      collection: t.expose('collection', {
        type: CollectionRef,
        description: 'The collection as it is after the payment.',
      }),
      cardPayment: t.field({
        type: CardPaymentRef,
        nullable: true,
        description: 'The card payment this payment made (card method).',
        resolve: (result) => (result.cardPayment ? { ...result.cardPayment, refunds: [] } : null),
      }),
      transfer: t.expose('debit', {
        type: TransferRef,
        nullable: true,
        description: "The ACH debit of the payer's account this payment made (bank account).",
      }),
      paymentAttempt: t.expose('attempt', {
        type: PaymentAttemptRef,
        nullable: true,
        description: 'Null: bank payments are ACH debits now (transfer); kept for older clients.',
        deprecationReason: 'Use transfer (bank account) or cardPayment.',
      }),
      threeDSecureUrl: t.exposeString('nextActionUrl', {
        nullable: true,
        description:
          'Set when the card needs a 3-D Secure challenge: open it, or call completeCardPaymentThreeDSecure.',
      }),
    }),
  });

const payCollectionBody = wireInput(
  'simulateCollectionPayment',
  payCollectionSchema,
  payCollectionFieldCodes,
  { path: ['reference'] },
);

builder.mutationFields((t) => ({
  simulateCollectionPayment: t.field({
    type: PayResultRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/collections/{reference}/pay: pay headlessly by card or bank account.',
    args: {
      reference: t.arg.string({ required: true, description: "The collection's reference, or its id." }),
      card: t.arg({ type: CardInput, description: 'Pay by card (when given, bankAccount is not read).' }),
      bankAccount: t.arg({ type: BankAccountInput, description: 'Pay by bank account (an ACH debit).' }),
      threeDSecure: t.arg({
        type: ThreeDSecureOutcomeEnum,
        description: 'Completes a 3-D Secure challenge in the same call, for headless tests (card only).',
      }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: async (_root, args, ctx) => {
      // By card when a card is given (a bank account beside it is not read), else by bank account.
      const raw = args.card
        ? { method: 'card', ...payCollectionBody.body({ card: args.card, threeDSecure: args.threeDSecure }) }
        : { method: 'bank_account', ...payCollectionBody.body({ bankAccount: args.bankAccount ?? {} }) };
      const result = await idempotentMutation<PayResult>(
        ctx,
        {
          name: 'simulateCollectionPayment',
          key: args.idempotencyKey,
          input: { reference: args.reference, ...raw },
        },
        async (svc) => {
          const paid = await payCollection(svc, args.reference, payCollectionBody.parse(raw));
          return { ...paid, id: paid.cardPayment?.id ?? paid.debit?.id ?? paid.attempt?.id ?? '' };
        },
        loadPayResult,
      );
      return {
        collection: result.collection,
        attempt: result.attempt,
        cardPayment: result.cardPayment,
        debit: result.debit,
        nextActionUrl: result.nextAction?.url ?? null,
      };
    },
  }),
}));

export { SandbankErrorRef };
