import { defineModule } from '../module.ts';
import { EXPIRE_AUTHORIZATION_JOB, expireAuthorizationJob } from './card-payments.capture.ts';
import { cardPaymentMachine, refundMachine } from './card-payments.machine.ts';
import { cardPaymentOperations } from './card-payments.operations.ts';
import { cardPaymentRecipes } from './card-payments.recipes.ts';
import { SETTLE_REFUND_JOB, settleRefundJob } from './card-payments.refund.ts';
import { CardPaymentWire, RefundWire } from './card-payments.resource.ts';
import { cardPayments, cardRefunds, cardTokens } from './card-payments.table.ts';
import { blankExpiredTokens, expireTokenJob, TOKEN_EXPIRY_JOB } from './card-payments.tokens.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { cardPayment: 'cp', refund: 're', token: 'tok' } as const;
type CardPaymentsIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends CardPaymentsIds {}
}

/** Card payments: tokens, payments (authorize, capture, 3-D Secure), refunds. */
export default defineModule({
  name: 'card-payments',
  tables: [cardTokens, cardPayments, cardRefunds],
  ids,
  operations: cardPaymentOperations,
  graphql: () => import('./card-payments.graphql.ts'),
  jobs: {
    [EXPIRE_AUTHORIZATION_JOB]: expireAuthorizationJob,
    [SETTLE_REFUND_JOB]: settleRefundJob,
    [TOKEN_EXPIRY_JOB]: expireTokenJob,
  },
  retention: [{ name: 'token secrets', purge: blankExpiredTokens }],
  recipes: cardPaymentRecipes,
  reset: [
    { kind: 'card_payments', table: 'card_payments', order: 30, lock: true, description: 'Card payments.' },
    { kind: 'refunds', table: 'card_refunds', order: 40, description: 'Refunds of card payments.' },
    { kind: 'tokens', table: 'card_tokens', order: 60, lock: true, description: 'Card tokens.' },
  ],
  events: [
    {
      object: 'card_payment',
      machines: [cardPaymentMachine],
      createdEvent: false,
      also: ['early_fraud_warning'],
      wire: CardPaymentWire,
      order: 20,
    },
    { object: 'refund', machines: [refundMachine], createdEvent: false, wire: RefundWire, order: 30 },
  ],
});
