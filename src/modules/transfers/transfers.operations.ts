import { z } from 'zod';
import type { ErrorCode } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation, type OperationDecl } from '../operation.ts';
import { createPayout, createTransfer } from './transfers.create.ts';
import type { EntryKind } from './transfers.machine.ts';
import { getPayout, getTransfer, listPayouts, listTransfers } from './transfers.read.ts';
import { Payout, Transfer } from './transfers.resource.ts';
import {
  contestDishonoredReturnSchema,
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
  dishonorReturnSchema,
  listPayoutsQuery,
  listTransfersQuery,
  returnTransferSchema,
  wireRecallSchema,
} from './transfers.schema.ts';
import { type EntrySteps, payoutSteps, transferSteps } from './transfers.steps.ts';
import { recallWire } from './transfers.wire-steps.ts';
import { requestWsudCopyOf } from './transfers.wsud.ts';

/** The operations on transfers and payouts, each declared once: its REST route and its GraphQL field. */

/** What an entry's creation can be refused for, on either kind (beyond its body's validation). */
const CREATE_ERRORS = [
  'amount_invalid',
  'currency_unsupported',
  'reference_invalid',
  'invalid_routing_number',
  'invalid_account_number',
  'amount_exceeds_rail_limit',
  'routing_number_unreachable',
  'insufficient_balance',
  'counterparty_verification_failed',
  'counterparty_verification_pending',
] as const satisfies readonly ErrorCode[];

const RETURN_ERRORS = ['invalid_state', 'return_code_not_allowed', 'return_deadline_passed'] as const;

/** What differs between transfers and payouts: names, declarations and services. */
interface Entry {
  kind: EntryKind;
  /** The kind as an operation's name spells it (getTransfer, cancelPayout). */
  Kind: 'Transfer' | 'Payout';
  plural: 'transfers' | 'payouts';
  prefix: string;
  tag: string;
  output: typeof Transfer | typeof Payout;
  get: typeof getTransfer;
  steps: EntrySteps;
}

/** Get, cancel and the simulate steps: the same for both kinds. */
function entryOperations(e: Entry): OperationDecl[] {
  const params = z.object({ id: z.string().min(1).max(255).describe(`The ${e.kind}'s id (${e.prefix}_…).`) });
  const submitted = e.kind === 'payout' ? 'in_transit' : 'submitted';
  const settled = e.kind === 'payout' ? 'paid' : 'settled';
  const now = `Answers with the ${e.kind} as it now stands.`;
  const common = { method: 'post', params, output: e.output, errors: ['invalid_state'] } as const;
  const simulate = { ...common, tags: ['Simulation'] };
  const mutation = (name: string) => ({ name, reload: e.get });
  return [
    defineOperation({
      name: `get${e.Kind}`,
      method: 'get',
      path: `/${e.plural}/{id}`,
      tags: [e.tag],
      summary: `Get a ${e.kind}`,
      params,
      output: e.output,
      run: (ctx, { params }) => e.get(ctx, params.id),
      graphql: { name: e.kind },
    }),
    defineOperation({
      ...common,
      name: `cancel${e.Kind}`,
      path: `/${e.plural}/{id}/cancel`,
      tags: [e.tag],
      summary: `Cancel an ACH ${e.kind} before its window submits it (the hold on available is released)`,
      description: `Only a pending ACH or Same-Day ACH ${e.kind} can be canceled (409 invalid_state otherwise, and on RTP and FedNow). ${now}`,
      run: (ctx, { params }) => e.steps.cancel(ctx, params.id),
      graphql: mutation(`cancel${e.Kind}`),
    }),
    defineOperation({
      ...simulate,
      name: `submit${e.Kind}`,
      path: `/simulate/${e.plural}/{id}/submit`,
      summary: `Submit an ACH ${e.kind} now, as its window would`,
      description: `Moves a pending ACH or Same-Day ACH ${e.kind} to ${submitted} before its window's cut-off (409 invalid_state in another state, and on RTP and FedNow). ${now}`,
      run: (ctx, { params }) => e.steps.submit(ctx, params.id),
      graphql: mutation(`simulate${e.Kind}Submit`),
    }),
    defineOperation({
      ...simulate,
      name: `settle${e.Kind}`,
      path: `/simulate/${e.plural}/{id}/settle`,
      summary: `Settle a submitted ACH ${e.kind} now`,
      description: `Moves a ${submitted} ACH or Same-Day ACH ${e.kind} to ${settled} before its settlement time (409 invalid_state in another state, and on RTP and FedNow). ${now}`,
      run: (ctx, { params }) => e.steps.settle(ctx, params.id),
      graphql: mutation(`simulate${e.Kind}Settle`),
    }),
    defineOperation({
      ...simulate,
      name: `return${e.Kind}`,
      path: `/simulate/${e.plural}/{id}/return`,
      errors: RETURN_ERRORS,
      summary: `Return a submitted or settled ACH ${e.kind} now, with a Nacha return code`,
      description: `The receiving bank sends the ${e.kind} back: ${e.kind === 'payout' ? 'failed while in transit, returned once paid' : 'returned'}, and its ledger effect is undone. 409 invalid_state unless ${submitted} or ${settled} on ACH; then 400 parameter_invalid for a code that is not in the Nacha list, 400 return_code_not_allowed for a code an RDFI cannot return this ${e.kind} with (an ENR, RCK, IAT, dishonor or contest code, a code of an entry class Sandbank does not originate, or a code of the other direction), and 409 return_deadline_passed (with its \`deadline\`) after the code's time frame, unless \`untimely: true\` lets it arrive late, marked \`return_untimely\`. ${now}`,
      body: returnTransferSchema,
      optionalBody: true,
      run: (ctx, { params, body }) => e.steps.return(ctx, params.id, body),
      graphql: mutation(`simulate${e.Kind}Return`),
    }),
    defineOperation({
      ...simulate,
      name: `dishonorReturn${e.Kind}`,
      path: `/simulate/${e.plural}/{id}/dishonor_return`,
      errors: RETURN_ERRORS,
      summary: `The originating bank dishonors the return of an ACH ${e.kind} (R61-R70)`,
      description: `The ODFI refuses the return of a ${settled} ${e.kind}: it becomes return_dishonored and its ledger effect applies again. 409 invalid_state unless returned after it ${settled === 'paid' ? 'was paid' : 'settled'}; 400 return_code_not_allowed for a code that is not a dishonor code or whose rule does not fit this return (R68 needs an untimely return, R70 an R06 or R31 return, R62 a debit); 409 return_deadline_passed (with its \`deadline\`) after the 5th banking day after the return. ${now}`,
      body: dishonorReturnSchema,
      run: (ctx, { params, body }) => e.steps.dishonorReturn(ctx, params.id, body),
      graphql: mutation(`simulate${e.Kind}DishonorReturn`),
    }),
    defineOperation({
      ...simulate,
      name: `contestDishonoredReturn${e.Kind}`,
      path: `/simulate/${e.plural}/{id}/contest_dishonored_return`,
      errors: RETURN_ERRORS,
      summary: `The receiving bank contests the dishonor of an ACH ${e.kind}'s return (R71-R77)`,
      description: `The RDFI contests a dishonored return: the ${e.kind} becomes return_contested (final) and is returned again in the ledger. 409 invalid_state unless return_dishonored; 400 return_code_not_allowed for a code that is not a contest code or does not answer this dishonor (R73 answers R68, R74 and R76 answer R69, R75 answers R67, R77 answers R62, R71 any); 409 return_deadline_passed (with its \`deadline\`) after the 2nd banking day after the dishonor. ${now}`,
      body: contestDishonoredReturnSchema,
      run: (ctx, { params, body }) => e.steps.contestDishonoredReturn(ctx, params.id, body),
      graphql: mutation(`simulate${e.Kind}ContestDishonoredReturn`),
    }),
  ];
}

export const transferOperations = [
  defineOperation({
    name: 'createTransfer',
    method: 'post',
    path: '/transfers',
    tags: ['Transfers'],
    summary: 'Send (credit) or pull (debit) money over ACH, Same-Day ACH, RTP or FedNow',
    description:
      'A credit is held from the available USD balance at once (422 insufficient_balance when short); a debit pulls from the counterparty (ACH only). ACH entries follow the FedACH windows of the simulated clock; RTP and FedNow credits complete or are rejected within seconds.',
    body: createTransferSchema,
    codes: createTransferFieldCodes,
    errors: [...CREATE_ERRORS, 'rail_direction_unsupported'],
    output: Transfer,
    run: (ctx, { body }) => createTransfer(ctx, body),
    graphql: { reload: getTransfer },
  }),
  defineOperation({
    name: 'listTransfers',
    method: 'get',
    path: '/transfers',
    tags: ['Transfers'],
    summary: 'List transfers, newest first',
    query: listQuerySchema.extend(listTransfersQuery),
    output: Transfer,
    list: true,
    run: (ctx, { query }) => listTransfers(ctx, query),
    graphql: { name: 'transfers', filters: { rail: 'rail', state: 'state' } },
  }),
  ...entryOperations({
    kind: 'transfer',
    Kind: 'Transfer',
    plural: 'transfers',
    prefix: 'tr',
    tag: 'Transfers',
    output: Transfer,
    get: getTransfer,
    steps: transferSteps,
  }),
  defineOperation({
    name: 'requestTransferWsudCopy',
    method: 'post',
    path: '/transfers/{id}/wsud_copy',
    tags: ['Transfers'],
    summary: "Ask the receiving bank for a copy of a return's written statement of unauthorized debit",
    description:
      "For a debit returned R05, R07, R10 or R11, whose return carries the receiver's Written Statement of Unauthorized Debit (`wsud`): the merchant's bank asks for a copy, which the receiving bank must send within 10 banking days and Sandbank's sends at once (`wsud.copy_requested_at`, `copy_provide_by`, `copy_provided_at`), emitting transfer.wsud_copy_provided. 409 invalid_state when the transfer carries no statement or a copy was already sent; 409 time_frame_passed (with its `deadline`) after `wsud.copy_request_by`, one year after the return.",
    params: z.object({ id: z.string().min(1).max(255).describe("The transfer's id.") }),
    errors: ['invalid_state', 'time_frame_passed'],
    output: Transfer,
    run: (ctx, { params }) => requestWsudCopyOf(ctx, params.id),
    graphql: { name: 'requestTransferWsudCopy', reload: getTransfer },
  }),
  defineOperation({
    name: 'recallTransfer',
    method: 'post',
    path: '/transfers/{id}/recall',
    tags: ['Transfers'],
    summary: "Recall a completed wire: ask the beneficiary's bank to send the funds back",
    description:
      "Fedwire transfers are final, so a recall is a request (ISO 20022 camt.056) the beneficiary's bank may honor or refuse. The request is recorded at once (`recall`, event transfer.recall_requested); the bank answers an hour later inside the Fedwire Funds Service's hours: it honors it by returning the wire (state returned, return code FOCR, event transfer.returned) or refuses it (`recall.state: refused` with a camt.029 reason, event transfer.recall_refused; account 000666666661 always refuses). 409 invalid_state for a transfer on another rail, a wire that is not completed (a pending one can be canceled), or one already recalled.",
    params: z.object({ id: z.string().min(1).max(255).describe("The wire's id (tr_…).") }),
    body: wireRecallSchema,
    errors: ['invalid_state'],
    output: Transfer,
    run: (ctx, { params, body }) => recallWire(ctx, params.id, body),
    graphql: { name: 'recallTransfer', reload: getTransfer },
  }),
  defineOperation({
    name: 'createPayout',
    method: 'post',
    path: '/payouts',
    tags: ['Payouts'],
    summary: "Pay out available USD to the merchant's own bank account over ACH, Same-Day ACH, RTP or FedNow",
    description:
      'The amount is held from the available USD balance at once (422 insufficient_balance when short) and leaves on the rail: ACH and Same-Day ACH at the next FedACH window of the simulated clock, RTP and FedNow within seconds.',
    body: createPayoutSchema,
    codes: createPayoutFieldCodes,
    errors: CREATE_ERRORS,
    output: Payout,
    run: (ctx, { body }) => createPayout(ctx, body),
    graphql: { reload: getPayout },
  }),
  defineOperation({
    name: 'listPayouts',
    method: 'get',
    path: '/payouts',
    tags: ['Payouts'],
    summary: 'List payouts, newest first',
    query: listQuerySchema.extend(listPayoutsQuery),
    output: Payout,
    list: true,
    run: (ctx, { query }) => listPayouts(ctx, query),
    graphql: { name: 'payouts', filters: { method: 'method', state: 'state' } },
  }),
  ...entryOperations({
    kind: 'payout',
    Kind: 'Payout',
    plural: 'payouts',
    prefix: 'po',
    tag: 'Payouts',
    output: Payout,
    get: getPayout,
    steps: payoutSteps,
  }),
];
