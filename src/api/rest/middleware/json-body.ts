import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { parse } from 'lossless-json';
import type { z } from 'zod';
import { readBodyText } from '../../../http/body-limit.ts';
import { coerceFormBody, isFormMediaType, parseFormBody } from '../../../http/form-body.ts';
import { SandbankError } from '../../../kernel/errors.ts';
import { assertStorableText } from '../../../kernel/text.ts';
import type { RestEnv } from '../../../rest/types.ts';

/**
 * JSON numbers keep their exact meaning: a literal that a double writes back identically (100, 12.5)
 * is a number; any other (100.50, 1e2, 0.1000000000000000001, 99999999999999999999) arrives as its
 * literal text, so the strict decimal rules judge what the client wrote, not a rounded float.
 */
function exactNumber(text: string): number | string {
  const value = Number(text);
  return String(value) === text ? value : text;
}

/**
 * Hands the body already read to Hono's body cache, as the object read here (exact numbers kept)
 * and as that object's JSON text. `c.req.json()` — and so the route's validator — parses the
 * cached text with JSON.parse, so the text must be the object's own, not the client's: from the
 * client's `1e2` JSON.parse would make 100, from the object's `"1e2"` it keeps the literal. The
 * route's schema therefore parses the very object this middleware judged, and its output is the
 * operation's typed input: a request is parsed once.
 */
function cacheBody(bodyCache: object, parsed: Record<string, unknown>): void {
  (bodyCache as Record<string, unknown>).text = Promise.resolve(JSON.stringify(parsed));
  (bodyCache as Record<string, unknown>).json = Promise.resolve(parsed);
}

function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase();
}

/**
 * Declares the body this middleware accepted as plain `application/json`, so that the route
 * validators after it (whose media-type gate is stricter: it refuses `application/json;` and a body
 * without a Content-Type) judge the same request this middleware judged, never a different one.
 * A form body is, from here on, the JSON body it was read into.
 */
function declareJson(c: Context<RestEnv>): void {
  if (c.req.header('content-type') === 'application/json') return;
  c.req.raw.headers.set('content-type', 'application/json');
}

function parseJson(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = text.trim().length === 0 ? {} : parse(text, null, exactNumber);
  } catch {
    throw new SandbankError('invalid_json');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SandbankError('invalid_json', { message: 'The request body must be a JSON object.' });
  }
  return parsed as Record<string, unknown>;
}

/** The body schema of the operation a request reached (undefined where none takes a body). */
export type BodySchemaOf = (method: string, path: string) => z.ZodType | undefined;

/**
 * Reads a request body once: at most 64 KiB (413), application/json or
 * application/x-www-form-urlencoded (415 otherwise), valid JSON or a well-formed form (400), an
 * object, and text every column can store (400). A POST without a body counts as {}. A form body
 * becomes the object its JSON twin would be (`rest/form-body.ts`, led by the operation's schema,
 * which `bodySchemaOf` finds), so from here on both are one request: the same validation, the
 * same errors, the same idempotency fingerprint.
 */
export function requestBody(bodySchemaOf: BodySchemaOf) {
  return createMiddleware<RestEnv>(async (c, next) => {
    if (c.req.method !== 'POST' && c.req.method !== 'PUT' && c.req.method !== 'PATCH') {
      c.set('body', {});
      return next();
    }
    const text = await readBodyText(c.req.raw, c.req.header('content-length'));
    if (text.length === 0 && !c.req.header('content-type')) {
      c.set('body', {});
      cacheBody(c.req.bodyCache, {});
      declareJson(c);
      return next();
    }
    const mediaType = mediaTypeOf(c.req.header('content-type'));
    let parsed: Record<string, unknown>;
    // Kept for the request log until the body is read (a body that fails to is logged as sent).
    c.set('unparsedBody', text);
    if (mediaType === 'application/json') {
      parsed = parseJson(text);
    } else if (isFormMediaType(mediaType)) {
      parsed = coerceFormBody(bodySchemaOf(c.req.method, c.req.path), parseFormBody(text));
    } else {
      throw new SandbankError('unsupported_media_type');
    }
    c.set('unparsedBody', undefined);
    assertStorableText(parsed);
    c.set('body', parsed);
    cacheBody(c.req.bodyCache, parsed);
    declareJson(c);
    await next();
  });
}
