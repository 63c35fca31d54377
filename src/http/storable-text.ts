import type { Context, MiddlewareHandler } from 'hono';
import { SandbankError } from '../kernel/errors.ts';
import { isStorableText, unstorableTextError, unstorableTextPath } from '../kernel/text.ts';

/**
 * The HTTP side of the boundary check for text no column can store (kernel/text.ts). Each request
 * is checked before it is routed: a path segment (an id) with such text is a 404, as an unknown id
 * is; a query parameter or a form field with it is a 400 naming the parameter. JSON bodies are
 * checked where they are parsed (api/rest/middleware/json-body.ts), GraphQL arguments by the schema (graphql/).
 */

/** Decodes a path segment as the router does: escapes that are not UTF-8 stay as they were. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function isFormRequest(c: Context): boolean {
  if (c.req.method !== 'POST') return false;
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  return type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data');
}

/** The first parameter of the query that is not storable text, as a 400 (its name, not its index). */
function queryError(c: Context): SandbankError | null {
  const found = unstorableTextPath(c.req.queries());
  return found ? unstorableTextError(found.slice(0, 1)) : null;
}

/**
 * Every request: an id in the path that cannot be stored is a 404 (`notFound` answers it the way
 * the surface answers unknown paths); on the API the query is checked here as well.
 */
export function refuseUnstorablePath(
  isApi: (path: string) => boolean,
  notFound: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.path.split('/').map(decodeSegment).every(isStorableText)) {
      if (isApi(c.req.path)) throw new SandbankError('resource_not_found', { message: 'No such object.' });
      return notFound(c);
    }
    if (isApi(c.req.path)) {
      const error = queryError(c);
      if (error) throw error;
    }
    await next();
  };
}

/**
 * A page's query and form fields (after the page's own body limit has read the body):
 * a 400 SandbankError for the page's error handler to render as the page's own.
 */
export const refuseUnstorableInput: MiddlewareHandler = async (c, next) => {
  const error = queryError(c);
  if (error) throw error;
  if (isFormRequest(c)) {
    let form: Awaited<ReturnType<typeof c.req.parseBody>>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw new SandbankError('parameter_invalid', { message: 'The form body could not be read.' });
    }
    const fields: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(form)) {
      const values = Array.isArray(value) ? value : [value];
      fields[name] = values.map((item) => (typeof item === 'string' ? item : item.name));
    }
    const found = unstorableTextPath(fields);
    if (found) throw unstorableTextError(found.slice(0, 1));
  }
  await next();
};
