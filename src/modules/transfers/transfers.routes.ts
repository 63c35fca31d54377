import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { createPayout, createTransfer } from './transfers.create.ts';
import type { EntryKind } from './transfers.machine.ts';
import { getPayout, getTransfer, listPayouts, listTransfers } from './transfers.read.ts';
import { payoutResource, type TransferRow, transferResource } from './transfers.resource.ts';
import {
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
  listPayoutsQuery,
  listTransfersQuery,
  returnTransferSchema,
} from './transfers.schema.ts';
import { type EntrySteps, payoutSteps, transferSteps } from './transfers.steps.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });

/** What differs between the REST surfaces of transfers (§5) and payouts (§6): names and services. */
interface EntryApi {
  kind: EntryKind;
  plural: 'transfers' | 'payouts';
  tag: string;
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
      tags: [e.tag],
      summary: `Cancel an ACH ${e.kind} before its window submits it (the hold on available is released)`,
      request: { params: idParam },
    }),
    async (c) => sendObject(c, e.resource(await e.steps.cancel(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  const steps = [
    ['submit', `Submit an ACH ${e.kind} now, as its window would`, e.steps.submit],
    ['settle', `Settle a submitted ACH ${e.kind} now`, e.steps.settle],
  ] as const;
  for (const [name, summary, run] of steps) {
    api.openapi(
      operation({
        method: 'post',
        path: `/simulate/${e.plural}/{id}/${name}`,
        tags: ['Simulation'],
        summary,
        request: { params: idParam },
      }),
      async (c) => sendObject(c, e.resource(await run(serviceContext(c), c.req.valid('param').id))),
      validationHook(),
    );
  }

  api.openapi(
    operation({
      method: 'post',
      path: `/simulate/${e.plural}/{id}/return`,
      tags: ['Simulation'],
      summary: `Return a submitted or settled ACH ${e.kind} now, with a Nacha return code`,
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
}

export function registerTransferRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/transfers',
      tags: ['Transfers'],
      summary: 'Send (credit) or pull (debit) money over ACH, Same-Day ACH or RTP',
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
      tags: ['Transfers'],
      summary: 'List transfers, newest first',
      request: { query: listQuerySchema.extend(listTransfersQuery) },
    }),
    async (c) => sendList(c, await listTransfers(serviceContext(c), c.req.valid('query')), transferResource),
    validationHook(),
  );

  registerEntrySteps(api, {
    kind: 'transfer',
    plural: 'transfers',
    tag: 'Transfers',
    resource: transferResource,
    get: getTransfer,
    steps: transferSteps,
  });

  api.openapi(
    operation({
      method: 'post',
      path: '/payouts',
      tags: ['Payouts'],
      summary: "Pay out available USD to the merchant's own bank account over ACH, Same-Day ACH or RTP",
      request: jsonRequestBody(createPayoutSchema),
    }),
    async (c) => sendObject(c, payoutResource(await createPayout(serviceContext(c), c.req.valid('json')))),
    validationHook(createPayoutFieldCodes),
  );

  api.openapi(
    operation({
      method: 'get',
      path: '/payouts',
      tags: ['Payouts'],
      summary: 'List payouts, newest first',
      request: { query: listQuerySchema.extend(listPayoutsQuery) },
    }),
    async (c) => sendList(c, await listPayouts(serviceContext(c), c.req.valid('query')), payoutResource),
    validationHook(),
  );

  registerEntrySteps(api, {
    kind: 'payout',
    plural: 'payouts',
    tag: 'Payouts',
    resource: payoutResource,
    get: getPayout,
    steps: payoutSteps,
  });
}
