import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RenderContext } from '../kernel/declare.ts';
import type { FileAnswer, OperationDecl } from '../modules/operation.ts';
import { sendList, sendObject } from './render.ts';
import { jsonRequestBody, listOf, operation, serviceContext, validationHook } from './routes.ts';
import type { RestEnv } from './types.ts';

/**
 * The REST route of each declared operation (src/modules/operation.ts): the OpenAPI entry from its
 * schemas and codes, and one handler for all — parse (the route's validator), call, render.
 */
export function mountOperations(api: OpenAPIHono<RestEnv>, operations: readonly OperationDecl[]): void {
  for (const op of operations) {
    for (const [id, schema] of Object.entries(op.components?.() ?? {}))
      api.openAPIRegistry.register(id, schema);
    const response = op.answer?.wire ?? (op.list ? listOf(op.output.wire, op.output.name) : op.output.wire);
    const request = {
      ...(op.params ? { params: op.params } : {}),
      ...(op.query ? { query: op.query } : {}),
      ...(op.body ? jsonRequestBody(op.body, !op.optionalBody) : {}),
    };
    const route = operation({
      method: op.method,
      path: op.path,
      operationId: op.name,
      response,
      ...(op.errors ? { errors: op.errors } : {}),
      ...(op.file ? { file: op.file.mediaTypes } : {}),
      tags: op.tags,
      ...(op.deprecated ? { deprecated: true } : {}),
      ...(op.publicKey ? { publicKey: true } : {}),
      ...(op.heavy ? { heavy: true } : {}),
      ...(op.ownTransactions ? { ownTransactions: true } : {}),
      ...(op.refuseKey ? { idempotent: false } : {}),
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      ...(Object.keys(request).length > 0 ? { request } : {}),
    });
    api.openapi(
      route,
      async (c) => {
        op.refuseKey?.(c.req.header('idempotency-key'));
        const ctx = serviceContext(c);
        const valid = (target: string) => (c.req.valid as (target: string) => unknown).call(c.req, target);
        const result = await op.run(ctx, {
          params: op.params ? valid('param') : undefined,
          query: op.query ? valid('query') : undefined,
          body: op.body ? valid('json') : undefined,
        });
        if (op.file) {
          const file = result as FileAnswer;
          return c.body(file.body, 200, {
            'content-type': file.contentType,
            'content-disposition': `attachment; filename="${file.filename}"`,
          });
        }
        const rc: RenderContext = { publicUrl: ctx.publicUrl };
        if (op.list) return sendList(c, result as never, (row) => op.output.render(row as never, rc));
        return sendObject(
          c,
          op.answer ? op.answer.render(result, rc) : op.output.render(result as never, rc),
        );
      },
      validationHook(op.codes),
    );
  }
}
