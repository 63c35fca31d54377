import { defineModule } from '../module.ts';
import { answerRequestJob, expireRequestJob, payRequestJob } from './payment-requests.jobs.ts';
import { paymentRequestMachine } from './payment-requests.machine.ts';
import { paymentRequestOperations } from './payment-requests.operations.ts';
import { paymentRequestRecipes } from './payment-requests.recipes.ts';
import { PaymentRequestWire } from './payment-requests.resource.ts';
import { RFP_ANSWER_JOB, RFP_EXPIRE_JOB, RFP_PAY_JOB } from './payment-requests.service.ts';
import { paymentRequests } from './payment-requests.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { paymentRequest: 'rfp' } as const;
type PaymentRequestsIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends PaymentRequestsIds {}
}

/** Requests for payment on RTP and FedNow, sent and received. */
export default defineModule({
  name: 'payment-requests',
  tables: [paymentRequests],
  ids,
  operations: paymentRequestOperations,
  graphql: () => import('./payment-requests.graphql.ts'),
  jobs: {
    [RFP_ANSWER_JOB]: answerRequestJob,
    [RFP_PAY_JOB]: payRequestJob,
    [RFP_EXPIRE_JOB]: expireRequestJob,
  },
  recipes: paymentRequestRecipes,
  reset: [
    {
      kind: 'payment_requests',
      table: 'payment_requests',
      order: 250,
      description: 'Requests for payment, sent and received.',
    },
  ],
  events: [
    {
      object: 'payment_request',
      machines: [paymentRequestMachine],
      createdEvent: true,
      wire: PaymentRequestWire,
      order: 300,
    },
  ],
});
