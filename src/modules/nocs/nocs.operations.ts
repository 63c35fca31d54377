import { z } from 'zod';
import type { ObjectDecl } from '../../kernel/declare.ts';
import { defineOperation } from '../operation.ts';
import { getTransfer } from '../transfers/transfers.read.ts';
import { type TransferRow, TransferWire, transferResource } from '../transfers/transfers.resource.ts';
import { refuseNocSchema, simulateNocSchema } from './nocs.schema.ts';
import { nocSteps } from './nocs.service.ts';

/** The NOC steps, each declared once: its REST route and its GraphQL field. */

const idParam = z.object({ id: z.string().min(1).max(255).describe("The transfer's id.") });

/** The transfer an NOC step answers with, as the transfers module renders it. */
const Transfer: ObjectDecl<TransferRow> = {
  name: 'Transfer',
  object: 'transfer',
  description: TransferWire.description ?? '',
  fields: {},
  wire: TransferWire,
  render: (row) => transferResource(row),
};

export const nocOperations = [
  defineOperation({
    name: 'notifyTransferChange',
    method: 'post',
    path: '/simulate/transfers/{id}/notification_of_change',
    tags: ['Simulation'],
    summary: 'The receiving bank sends a notification of change (C01-C13) about a settled ACH transfer',
    description:
      'The transfer stays settled; its notifications_of_change gets the NOC, a saved counterparty it named is corrected at once, and transfer.notification_of_change is emitted. 409 invalid_state unless settled on ACH with no NOC yet, or with its last NOC refused (a corrected NOC, until 23:59:59 ET of the 5th banking day after the refusal); 400 parameter_invalid for C08 and C14 (IAT only), C10-C12 (not sent for PPD, CCD or WEB), a refused-NOC code, or corrected_data that is not a correction; 409 time_frame_passed after 23:59:59 ET of the 2nd banking day after settlement. Fields of corrected_data left out are derived from the entry.',
    params: idParam,
    body: simulateNocSchema,
    errors: ['invalid_state', 'time_frame_passed'],
    output: Transfer,
    run: (ctx, { params, body }) => nocSteps.receive(ctx, params.id, body),
    graphql: { name: 'simulateTransferNotificationOfChange', reload: getTransfer },
  }),
  defineOperation({
    name: 'refuseTransferChange',
    method: 'post',
    path: '/transfers/{id}/notification_of_change/refuse',
    tags: ['Transfers'],
    summary: "Refuse a transfer's notification of change (C61-C69): its correction is reverted",
    description:
      "The merchant's ODFI sends the NOC back as refused: the saved counterparty's corrected fields go back to what they were, and transfer.notification_of_change_refused is emitted. 409 invalid_state without an NOC or when it is already refused; 400 parameter_invalid for a code that is not C61-C69 (any of them refuses any NOC: each names an error in the NOC itself); 409 time_frame_passed after its refuse_by (15 calendar days after receipt, 23:59:59 ET).",
    params: idParam,
    body: refuseNocSchema,
    errors: ['invalid_state', 'time_frame_passed'],
    output: Transfer,
    run: (ctx, { params, body }) => nocSteps.refuse(ctx, params.id, body),
    graphql: { name: 'refuseTransferNotificationOfChange', reload: getTransfer },
  }),
];
