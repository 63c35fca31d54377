import type { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';

type Definitions = OpenAPIHono['openAPIRegistry']['definitions'];

/**
 * Finds the body schema of the operation a request reaches, from the registered operations
 * (read on first use, once every module has registered its own): a POST to
 * `/v1/card_payments/cp_1/capture` finds `/card_payments/{id}/capture`'s JSON body schema. No two
 * POST templates overlap today; were two to match, the one with more fixed segments would win.
 */
export function bodySchemaLookup(definitions: () => Definitions, prefix = '/v1') {
  let routes: { method: string; pattern: RegExp; fixed: number; schema: z.ZodType }[] | undefined;
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (method: string, path: string): z.ZodType | undefined => {
    routes ??= definitions()
      .flatMap((definition) => {
        if (definition.type !== 'route') return [];
        const { route } = definition;
        const media = route.request?.body?.content['application/json'];
        const schema = media && 'schema' in media ? media.schema : undefined;
        // Only a zod schema leads the reading (a hand-written JSON Schema would not validate either).
        if (!schema || !('_zod' in schema)) return [];
        const segments = route.path.split('/').filter(Boolean);
        const pattern = segments.map((part) => (/^\{.+\}$/.test(part) ? '[^/]+' : literal(part))).join('/');
        return [
          {
            method: route.method.toUpperCase(),
            pattern: new RegExp(`^${literal(prefix)}/${pattern}$`),
            fixed: segments.filter((part) => !part.startsWith('{')).length,
            schema: schema as unknown as z.ZodType,
          },
        ];
      })
      .sort((a, b) => b.fixed - a.fixed);
    return routes.find((route) => route.method === method && route.pattern.test(path))?.schema;
  };
}
