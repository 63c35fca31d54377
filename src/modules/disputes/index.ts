import { MAGIC_DISPUTE_JOB } from '../card-payments/card-payments.disputes.ts';
import { defineModule } from '../module.ts';
import { disputeMachine } from './disputes.machine.ts';
import { disputeOperations } from './disputes.operations.ts';
import { disputeRecipes } from './disputes.recipes.ts';
import { DisputeWire } from './disputes.resource.ts';
import {
  DISPUTE_DUE_JOB,
  DISPUTE_REVIEW_JOB,
  disputeDueJob,
  disputeReviewJob,
  magicDisputeJob,
} from './disputes.service.ts';
import { disputes } from './disputes.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { dispute: 'dp' } as const;
type DisputesIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends DisputesIds {}
}

/** Disputes of card payments: evidence, the issuer's review, the outcome. */
export default defineModule({
  name: 'disputes',
  tables: [disputes],
  ids,
  operations: disputeOperations,
  graphql: () => import('./disputes.graphql.ts'),
  jobs: {
    // Scheduled by card payments (a magic card's payment is disputed), done here.
    [MAGIC_DISPUTE_JOB]: magicDisputeJob,
    [DISPUTE_DUE_JOB]: disputeDueJob,
    [DISPUTE_REVIEW_JOB]: disputeReviewJob,
  },
  recipes: disputeRecipes,
  reset: [{ kind: 'disputes', table: 'disputes', order: 50, description: 'Disputes of card payments.' }],
  events: [
    { object: 'dispute', machines: [disputeMachine], createdEvent: false, wire: DisputeWire, order: 40 },
  ],
});
