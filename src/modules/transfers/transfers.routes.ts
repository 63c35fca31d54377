import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { sendList, sendObject } from '../../rest/render.ts';
import { jsonRequestBody, operation, serviceContext, validationHook } from '../../rest/routes.ts';
import type { RestEnv } from '../../rest/types.ts';
import { transferResource } from './transfers.resource.ts';
import {
  createTransferFieldCodes,
  createTransferSchema,
  listTransfersQuery,
  returnTransferSchema,
} from './transfers.schema.ts';
import {
  cancelTransfer,
  createTransfer,
  getTransfer,
  listTransfers,
  simulateReturn,
  simulateSettle,
  simulateSubmit,
} from './transfers.service.ts';

const idParam = z.object({ id: z.string().min(1).max(255) });

export function registerTransferRoutes(api: OpenAPIHono<RestEnv>): void {
  api.openapi(
    operation({
      method: 'post',
      path: '/transfers',
      tags: ['Transfers'],
      summary: 'Send (credit) or pull (debit) money over ACH, Same-Day ACH or RTP',
      request: jsonRequestBody(createTransferSchema),
    }),
    async (c) => sendObject(c, transferResource(await createTransfer(serviceContext(c), c.get('body')))),
    validationHook({ ...createTransferFieldCodes, counterparty: 'parameter_invalid' }),
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

  api.openapi(
    operation({
      method: 'get',
      path: '/transfers/{id}',
      tags: ['Transfers'],
      summary: 'Get a transfer',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(c, transferResource(await getTransfer(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  api.openapi(
    operation({
      method: 'post',
      path: '/transfers/{id}/cancel',
      tags: ['Transfers'],
      summary: 'Cancel an ACH transfer before its window submits it (a credit’s hold is released)',
      request: { params: idParam },
    }),
    async (c) =>
      sendObject(c, transferResource(await cancelTransfer(serviceContext(c), c.req.valid('param').id))),
    validationHook(),
  );

  const steps = [
    ['submit', 'Submit an ACH transfer now, as its window would', simulateSubmit],
    ['settle', 'Settle a submitted ACH transfer now', simulateSettle],
  ] as const;
  for (const [name, summary, run] of steps) {
    api.openapi(
      operation({
        method: 'post',
        path: `/simulate/transfers/{id}/${name}`,
        tags: ['Simulation'],
        summary,
        request: { params: idParam },
      }),
      async (c) => sendObject(c, transferResource(await run(serviceContext(c), c.req.valid('param').id))),
      validationHook(),
    );
  }

  api.openapi(
    operation({
      method: 'post',
      path: '/simulate/transfers/{id}/return',
      tags: ['Simulation'],
      summary: 'Return a submitted or settled ACH transfer now, with a Nacha return code',
      request: { params: idParam, ...jsonRequestBody(returnTransferSchema, false) },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      return sendObject(
        c,
        transferResource(await simulateReturn(ctx, c.req.valid('param').id, c.get('body'))),
      );
    },
    validationHook(),
  );
}
