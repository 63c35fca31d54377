import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ErrorCode } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { createPayout, createTransfer } from './transfers.create.ts';
import type { EntryKind } from './transfers.machine.ts';
import { getPayout, getTransfer, listPayouts, listTransfers } from './transfers.read.ts';
import {
  PayoutWire,
  payoutResource,
  type TransferRow,
  TransferWire,
  transferResource,
} from './transfers.resource.ts';
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
} from './transfers.schema.ts';
import { type EntrySteps, payoutSteps, transferSteps } from './transfers.steps.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });

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
] as const satisfies readonly ErrorCode[];

/** What differs between the REST surfaces of transfers and payouts: names, schemas and services. */
interface EntryApi {
  kind: EntryKind;
  /** The kind as an operationId spells it (getTransfer, cancelPayout). */
  Kind: 'Transfer' | 'Payout';
  plural: 'transfers' | 'payouts';
  tag: string;
  wire: typeof TransferWire | typeof PayoutWire;
  resource: (row: TransferRow) => Record<string, unknown>;
  get: typeof getTransfer;
  steps: EntrySteps;
}

/** Get, cancel and the simulate steps: the same for both kinds. */
function registerEntrySteps(api: OpenAPIHono<RestEnv>, e: EntryApi): void {
  api.openapi(
    operation({
      method: 'get',
      path: `/${e.plural}/{id}`,
      operationId: `get${e.Kind}`,
      response: e.wire,
      tags: [e.tag],
      summary: `Get a ${e.kind}`,
      request: { params: idParam },
    }),
    async (c) => sendObject(c, e.resource(await e.get(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: `/${e.plural}/{id}/cancel`,
      operationId: `cancel${e.Kind}`,
      response: e.wire,
      errors: ['invalid_state'],
      tags: [e.tag],
      summary: `Cancel an ACH ${e.kind} before its window submits it (the hold on available is released)`,
      description: `Only a pending ACH or Same-Day ACH ${e.kind} can be canceled (409 invalid_state otherwise, and on RTP and FedNow). Answers with the ${e.kind} as it now stands.`,
      request: { params: idParam },
    }),
    async (c) => sendObject(c, e.resource(await e.steps.cancel(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  const submitted = e.kind === 'payout' ? 'in_transit' : 'submitted';
  const steps = [
    [
      'submit',
      `Submit an ACH ${e.kind} now, as its window would`,
      `Moves a pending ACH or Same-Day ACH ${e.kind} to ${submitted} before its window's cut-off (409 invalid_state in another state, and on RTP and FedNow). Answers with the ${e.kind} as it now stands.`,
      e.steps.submit,
    ],
    [
      'settle',
      `Settle a submitted ACH ${e.kind} now`,
      `Moves a ${submitted} ACH or Same-Day ACH ${e.kind} to ${e.kind === 'payout' ? 'paid' : 'settled'} before its settlement time (409 invalid_state in another state, and on RTP and FedNow). Answers with the ${e.kind} as it now stands.`,
      e.steps.settle,
    ],
  ] as const;
  for (const [name, summary, description, run] of steps) {
    api.openapi(
      operation({
        method: 'post',
        path: `/simulate/${e.plural}/{id}/${name}`,
        operationId: `${name}${e.Kind}`,
        response: e.wire,
        errors: ['invalid_state'],
        tags: ['Simulation'],
        summary,
        description,
        request: { params: idParam },
      }),
      async (c) => sendObject(c, e.resource(await run(serviceContext(c), c.req.valid('param').id))),
      validationHook(),
    );
  }

  const returned = e.kind === 'payout' ? 'paid' : 'settled';
  api.openapi(
    operation({
      method: 'post',
      path: `/simulate/${e.plural}/{id}/return`,
      operationId: `return${e.Kind}`,
      response: e.wire,
      errors: ['invalid_state', 'return_code_not_allowed', 'return_deadline_passed'],
      tags: ['Simulation'],
      summary: `Return a submitted or settled ACH ${e.kind} now, with a Nacha return code`,
      description: `The receiving bank sends the ${e.kind} back: ${e.kind === 'payout' ? 'failed while in transit, returned once paid' : 'returned'}, and its ledger effect is undone. 409 invalid_state unless ${submitted} or ${returned} on ACH; then 400 parameter_invalid for a code that is not in the Nacha list, 400 return_code_not_allowed for a code an RDFI cannot return this ${e.kind} with (an ENR, RCK, IAT, dishonor or contest code, a code of an entry class Sandbank does not originate, or a code of the other direction), and 422 return_deadline_passed (with its \`deadline\`) after the code's time frame, unless \`untimely: true\` lets it arrive late, marked \`return_untimely\`. Answers with the ${e.kind} as it now stands.`,
      request: { params: idParam, ...jsonRequestBody(returnTransferSchema, false) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendObject(
        c,
        e.resource(await e.steps.return(ctx, c.req.valid('param').id, c.req.valid('json'))),
      );
    },
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: `/simulate/${e.plural}/{id}/dishonor_return`,
      operationId: `dishonorReturn${e.Kind}`,
      response: e.wire,
      errors: ['invalid_state', 'return_code_not_allowed', 'return_deadline_passed'],
      tags: ['Simulation'],
      summary: `The originating bank dishonors the return of an ACH ${e.kind} (R61-R70)`,
      description: `The ODFI refuses the return of a ${returned} ${e.kind}: it becomes return_dishonored and its ledger effect applies again. 409 invalid_state unless returned after it ${returned === 'paid' ? 'was paid' : 'settled'}; 400 return_code_not_allowed for a code that is not a dishonor code or whose rule does not fit this return (R68 needs an untimely return, R70 an R06 or R31 return, R62 a debit); 422 return_deadline_passed (with its \`deadline\`) after the 5th banking day after the return. Answers with the ${e.kind} as it now stands.`,
      request: { params: idParam, ...jsonRequestBody(dishonorReturnSchema) },
    }),
    async (c) =>
      sendObject(
        c,
        e.resource(
          await e.steps.dishonorReturn(serviceContext(c), c.req.valid('param').id, c.req.valid('json')),
        ),
      ),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: `/simulate/${e.plural}/{id}/contest_dishonored_return`,
      operationId: `contestDishonoredReturn${e.Kind}`,
      response: e.wire,
      errors: ['invalid_state', 'return_code_not_allowed', 'return_deadline_passed'],
      tags: ['Simulation'],
      summary: `The receiving bank contests the dishonor of an ACH ${e.kind}'s return (R71-R77)`,
      description: `The RDFI contests a dishonored return: the ${e.kind} becomes return_contested (final) and is returned again in the ledger. 409 invalid_state unless return_dishonored; 400 return_code_not_allowed for a code that is not a contest code or does not answer this dishonor (R73 answers R68, R74 and R76 answer R69, R75 answers R67, R77 answers R62, R71 any); 422 return_deadline_passed (with its \`deadline\`) after the 2nd banking day after the dishonor. Answers with the ${e.kind} as it now stands.`,
      request: { params: idParam, ...jsonRequestBody(contestDishonoredReturnSchema) },
    }),
    async (c) =>
      sendObject(
        c,
        e.resource(
          await e.steps.contestDishonoredReturn(
            serviceContext(c),
            c.req.valid('param').id,
            c.req.valid('json'),
          ),
        ),
      ),
    validationHook(),
  );
}

export function registerTransferRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/transfers',
      operationId: 'createTransfer',
      response: TransferWire,
      errors: [...CREATE_ERRORS, 'rail_direction_unsupported'],
      tags: ['Transfers'],
      summary: 'Send (credit) or pull (debit) money over ACH, Same-Day ACH, RTP or FedNow',
      description:
        'A credit is held from the available USD balance at once (422 insufficient_balance when short); a debit pulls from the counterparty (ACH only). ACH entries follow the FedACH windows of the simulated clock; RTP and FedNow credits complete or are rejected within seconds.',
      request: jsonRequestBody(createTransferSchema),
    }),
    async (c) =>
      sendObject(c, transferResource(await createTransfer(serviceContext(c), c.req.valid('json')))),
    validationHook(createTransferFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/transfers',
      operationId: 'listTransfers',
      response: listOf(TransferWire, 'Transfer'),
      tags: ['Transfers'],
      summary: 'List transfers, newest first',
      request: { query: listQuerySchema.extend(listTransfersQuery) },
    }),
    async (c) => sendList(c, await listTransfers(serviceContext(c), c.req.valid('query')), transferResource),
    validationHook(),
  );

  registerEntrySteps(api, {
    kind: 'transfer',
    Kind: 'Transfer',
    plural: 'transfers',
    tag: 'Transfers',
    wire: TransferWire,
    resource: transferResource,
    get: getTransfer,
    steps: transferSteps,
  });

  api.openapi(
    operation({
      method: 'post',
      path: '/payouts',
      operationId: 'createPayout',
      response: PayoutWire,
      errors: CREATE_ERRORS,
      tags: ['Payouts'],
      summary:
        "Pay out available USD to the merchant's own bank account over ACH, Same-Day ACH, RTP or FedNow",
      description:
        'The amount is held from the available USD balance at once (422 insufficient_balance when short) and leaves on the rail: ACH and Same-Day ACH at the next FedACH window of the simulated clock, RTP and FedNow within seconds.',
      request: jsonRequestBody(createPayoutSchema),
    }),
    async (c) => sendObject(c, payoutResource(await createPayout(serviceContext(c), c.req.valid('json')))),
    validationHook(createPayoutFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/payouts',
      operationId: 'listPayouts',
      response: listOf(PayoutWire, 'Payout'),
      tags: ['Payouts'],
      summary: 'List payouts, newest first',
      request: { query: listQuerySchema.extend(listPayoutsQuery) },
    }),
    async (c) => sendList(c, await listPayouts(serviceContext(c), c.req.valid('query')), payoutResource),
    validationHook(),
  );

  registerEntrySteps(api, {
    kind: 'payout',
    Kind: 'Payout',
    plural: 'payouts',
    tag: 'Payouts',
    wire: PayoutWire,
    resource: payoutResource,
    get: getPayout,
    steps: payoutSteps,
  });
}
