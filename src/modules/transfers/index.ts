import { defineModule } from '../module.ts';
import { answerRtpJob, returnTransferJob, settleTransferJob, submitTransferJob } from './transfers.jobs.ts';
import {
  achPayoutMachine,
  achTransferMachine,
  rtpPayoutMachine,
  rtpTransferMachine,
  wirePayoutMachine,
  wireTransferMachine,
} from './transfers.machine.ts';
import { transferOperations } from './transfers.operations.ts';
import { heldCreditRecipes, transferRecipes } from './transfers.recipes.ts';
import { payoutRecipes } from './transfers.recipes-payouts.ts';
import { returnDisputeRecipes } from './transfers.recipes-returns.ts';
import { wireRecipes } from './transfers.recipes-wires.ts';
import { PayoutWire, TransferWire } from './transfers.resource.ts';
import {
  TRANSFER_RETURN_JOB,
  TRANSFER_RTP_JOB,
  TRANSFER_SETTLE_JOB,
  TRANSFER_SUBMIT_JOB,
  TRANSFER_WIRE_JOB,
  TRANSFER_WIRE_RECALL_JOB,
  TRANSFER_WIRE_RETURN_JOB,
} from './transfers.rows.ts';
import { transfers } from './transfers.table.ts';
import { answerRecallJob, processWireJob, returnWireJob } from './transfers.wire-steps.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { transfer: 'tr', payout: 'po' } as const;
type TransfersIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends TransfersIds {}
}

/** Transfers and payouts on the rails (FedACH, RTP, FedNow, Fedwire), and a checkout's ACH debit. */
export default defineModule({
  name: 'transfers',
  tables: [transfers],
  ids,
  operations: transferOperations,
  graphql: () => import('./transfers.graphql.ts'),
  jobs: {
    [TRANSFER_SUBMIT_JOB]: submitTransferJob,
    [TRANSFER_SETTLE_JOB]: settleTransferJob,
    [TRANSFER_RETURN_JOB]: returnTransferJob,
    [TRANSFER_RTP_JOB]: answerRtpJob,
    [TRANSFER_WIRE_JOB]: processWireJob,
    [TRANSFER_WIRE_RETURN_JOB]: returnWireJob,
    [TRANSFER_WIRE_RECALL_JOB]: answerRecallJob,
  },
  recipes: [
    ...transferRecipes,
    ...payoutRecipes,
    ...returnDisputeRecipes,
    ...heldCreditRecipes,
    ...wireRecipes,
  ],
  reset: [
    {
      kind: 'transfers',
      table: 'transfers',
      where: "kind = 'transfer'",
      order: 70,
      lock: true,
      description: 'Bank transfers.',
    },
    { kind: 'payouts', table: 'transfers', where: "kind = 'payout'", order: 80, description: 'Payouts.' },
  ],
  events: [
    {
      object: 'transfer',
      machines: [achTransferMachine, rtpTransferMachine, wireTransferMachine],
      createdEvent: true,
      // Told by the nocs module: a correction received, or refused; a copy of a return's written
      // statement of unauthorized debit sent to the merchant; a wire's recall asked for, or refused.
      also: [
        'notification_of_change',
        'notification_of_change_refused',
        'wsud_copy_provided',
        'recall_requested',
        'recall_refused',
      ],
      wire: TransferWire,
      order: 50,
    },
    {
      object: 'payout',
      machines: [achPayoutMachine, rtpPayoutMachine, wirePayoutMachine],
      createdEvent: true,
      wire: PayoutWire,
      order: 60,
    },
  ],
});
