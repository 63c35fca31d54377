import { builder } from '../../graphql/builder.ts';
import {
  idempotentMutation,
  listQueryOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { SandbankErrorRef } from '../../graphql/errors.ts';
import { CardInput } from '../../graphql/inputs.ts';
import { CurrencyCodeEnum, MoneyRef } from '../../graphql/scalars.ts';
import { TransactionRef } from '../../graphql/transaction.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { CardPaymentRef } from '../card-payments/card-payments.graphql.ts';
import type { CardPaymentRow } from '../card-payments/card-payments.resource.ts';
import type { CardPaymentDetail } from '../card-payments/card-payments.rows.ts';
import { TransferRef } from '../transfers/transfers.graphql.ts';
import type { TransferRow } from '../transfers/transfers.resource.ts';
import { collectionMachine } from './collections.machine.ts';
import { loadPayResult, type PayResult, payCollection } from './collections.pay.ts';
import { type AttemptRow, type CollectionRow, checkoutUrl } from './collections.resource.ts';
import {
  createCollectionFieldCodes,
  createCollectionSchema,
  payCollectionFieldCodes,
  payCollectionSchema,
} from './collections.schema.ts';
import {
  type CollectionDetail,
  cancelCollection,
  createCollection,
  getCollection,
  listCollections,
} from './collections.service.ts';

const PaymentAttemptRef = builder.objectRef<AttemptRow>('PaymentAttempt').implement({
  description: 'One attempt to pay a collection, by card or bank account.',
  fields: (t) => ({
    id: t.exposeID('id'),
    method: t.exposeString('method'),
    state: t.exposeString('state'),
    amount: t.field({
      type: MoneyRef,
      resolve: (row) => ({ amount: row.amount, currency: row.currency as CurrencyCode }),
    }),
    cardBrand: t.exposeString('cardBrand', { nullable: true }),
    cardLast4: t.exposeString('cardLast4', { nullable: true }),
    threeDSecure: t.exposeString('threeDSecure', { nullable: true }),
    networkResponseCode: t.exposeString('networkResponseCode', { nullable: true }),
    declineCode: t.exposeString('declineCode', { nullable: true }),
    failureMessage: t.exposeString('failureMessage', { nullable: true }),
    bankAccountLast4: t.exposeString('bankAccountLast4', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
  }),
});

type CollectionNode = CollectionRow & {
  attempts?: AttemptRow[];
  debits?: TransferRow[];
  cardPayments?: CardPaymentDetail[];
};

const CollectionRef = builder.objectRef<CollectionNode>('Collection').implement({
  description: `A hosted checkout session: POST /v1/collect. States: ${collectionMachine.states.join(', ')}.`,
  interfaces: [TransactionRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'collection'),
  fields: (t) => ({
    reference: t.exposeString('reference'),
    email: t.exposeString('email', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    redirectUrl: t.exposeString('redirectUrl', { nullable: true }),
    metadata: t.field({ type: 'JSONObject', resolve: (row) => row.metadata }),
    checkoutUrl: t.string({ resolve: (row, _args, ctx) => checkoutUrl(ctx.deps.publicUrl, row) }),
    expiresAt: t.field({ type: 'DateTime', resolve: (row) => row.expiresAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (row) => row.updatedAt }),
    failureCode: t.exposeString('failureCode', {
      nullable: true,
      description: 'Why a bank payment failed: the ACH return code of its debit.',
    }),
    failureMessage: t.exposeString('failureMessage', { nullable: true }),
    paymentAttempts: t.field({
      type: [PaymentAttemptRef],
      description:
        'Bank-account payment attempts made before bank payments became ACH debits (see transfers), newest first.',
      resolve: async (row, _args, ctx) =>
        row.attempts ?? (await getCollection(serviceContext(ctx), row.id)).attempts,
    }),
    transfers: t.field({
      type: [TransferRef],
      description: "The checkout's bank-account payments: ACH debits of the payer's account, newest first.",
      resolve: async (row, _args, ctx) =>
        row.debits ?? (await getCollection(serviceContext(ctx), row.id)).debits,
    }),
    cardPayments: t.field({
      type: [CardPaymentRef],
      description: "The checkout's card payments, newest first, each with its decline code if declined.",
      resolve: async (row, _args, ctx) =>
        row.cardPayments ?? (await getCollection(serviceContext(ctx), row.id)).cardPayments,
    }),
  }),
});

const CreateCollectionInput = builder.inputType('CreateCollectionInput', {
  fields: (t) => ({
    amount: t.field({ type: 'Decimal', required: true }),
    currency: t.field({ type: CurrencyCodeEnum, required: true }),
    email: t.string(),
    reference: t.string(),
    description: t.string(),
    redirectUrl: t.string(),
    metadata: t.field({ type: 'JSONObject' }),
    expiresIn: t.int({ description: 'Seconds until the checkout expires (1800-86400, default 86400).' }),
  }),
});

const BankAccountInput = builder.inputType('BankAccountInput', {
  fields: (t) => ({
    name: t.string(),
    routingNumber: t.string({ required: true }),
    accountNumber: t.string({ required: true }),
    accountType: t.string({ description: 'checking (default) or savings' }),
  }),
});

builder.queryFields((t) => ({
  collection: t.field({
    type: CollectionRef,
    nullable: true,
    description: 'A collection by its reference (or id); null when the merchant has none.',
    args: { reference: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getCollection(serviceContext(ctx), args.reference)),
  }),
  collections: t.connection({
    type: CollectionRef,
    description: 'Collections, newest first (first: 1-100, default 20).',
    resolve: async (_root, args, ctx) => {
      const page = await listCollections(serviceContext(ctx), listQueryOf(args));
      return toConnection(page, args);
    },
  }),
}));

const PayResultRef = builder
  .objectRef<{
    collection: CollectionDetail | CollectionRow;
    attempt: AttemptRow | null;
    cardPayment: CardPaymentRow | null;
    debit: TransferRow | null;
    nextActionUrl: string | null;
  }>('CollectionPayment')
  .implement({
    fields: (t) => ({
      collection: t.field({ type: CollectionRef, resolve: (result) => result.collection }),
      cardPayment: t.field({
        type: CardPaymentRef,
        nullable: true,
        description: 'The card payment this payment made (card method).',
        resolve: (result) => (result.cardPayment ? { ...result.cardPayment, refunds: [] } : null),
      }),
      transfer: t.field({
        type: TransferRef,
        nullable: true,
        description: "The ACH debit of the payer's account this payment made (bank account).",
        resolve: (result) => result.debit,
      }),
      paymentAttempt: t.field({
        type: PaymentAttemptRef,
        nullable: true,
        description: 'Null: bank payments are ACH debits now (transfer); kept for older clients.',
        deprecationReason: 'Use transfer (bank account) or cardPayment.',
        resolve: (result) => result.attempt,
      }),
      threeDSecureUrl: t.string({
        nullable: true,
        description:
          'Set when the card needs a 3-D Secure challenge: open it, or call completeCardPaymentThreeDSecure.',
        resolve: (result) => result.nextActionUrl,
      }),
    }),
  });

const createCollectionBody = wireInput(
  'createCollection',
  createCollectionSchema,
  createCollectionFieldCodes,
  { inputArg: 'input' },
);
const payCollectionBody = wireInput(
  'simulateCollectionPayment',
  payCollectionSchema,
  payCollectionFieldCodes,
  { path: ['reference'] },
);

builder.mutationFields((t) => ({
  createCollection: t.field({
    type: CollectionRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/collect: create a collection and its checkout_url.',
    args: { input: t.arg({ type: CreateCollectionInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { input, idempotencyKey }, ctx) => {
      const body = createCollectionBody.body({ input });
      return idempotentMutation<CollectionNode>(
        ctx,
        { name: 'createCollection', key: idempotencyKey, input: body },
        (svc) => createCollection(svc, createCollectionBody.parse(body)),
        (svc, id) => getCollection(svc, id),
      );
    },
  }),
  cancelCollection: t.field({
    type: CollectionRef,
    errors: { types: [SandbankError] },
    args: { reference: t.arg.string({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_root, { reference, idempotencyKey }, ctx) =>
      idempotentMutation<CollectionNode>(
        ctx,
        { name: 'cancelCollection', key: idempotencyKey, input: { reference } },
        (svc) => cancelCollection(svc, reference),
        (svc, id) => getCollection(svc, id),
      ),
  }),
  simulateCollectionPayment: t.field({
    type: PayResultRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/simulate/collections/{reference}/pay: pay headlessly by card or bank account.',
    args: {
      reference: t.arg.string({ required: true }),
      card: t.arg({ type: CardInput }),
      bankAccount: t.arg({ type: BankAccountInput }),
      threeDSecure: t.arg.string({
        description: 'succeed or fail: completes a 3-D Secure challenge in the same call',
      }),
      idempotencyKey: t.arg.string(),
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
