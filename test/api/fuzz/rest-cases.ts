import fc from 'fast-check';
import type { RawRequest } from './http-client.ts';

/**
 * Generated bad REST requests. Every case is invalid by construction (an unknown field, a wrong
 * type, text no column can store, broken JSON, a body that is not an object, a foreign media type,
 * a missing required body, an oversized body, an unusable path id or query, a bad Idempotency-Key),
 * so the server must answer each with a 4xx and write nothing, whatever the rest of the request is.
 */

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
};

export interface PostRoute {
  /** The OpenAPI path under /v1, e.g. /card_payments/{id}/capture. */
  template: string;
  params: string[];
  bodyRequired: boolean;
  /** Whether an empty object is refused by the schema (it requires a field or one of several shapes). */
  emptyRefused: boolean;
  properties: Record<string, JsonSchema>;
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      { requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> } }
    >
  >;
}

/** Every POST operation of the document. */
export function postRoutes(document: OpenApiDocument): PostRoute[] {
  const routes: PostRoute[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    const post = operations.post;
    if (!post) continue;
    const schema = post.requestBody?.content?.['application/json']?.schema ?? {};
    const variants = schema.oneOf ?? schema.anyOf;
    routes.push({
      template,
      params: [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
      bodyRequired: post.requestBody?.required === true,
      emptyRefused: (schema.required?.length ?? 0) > 0 || (variants?.length ?? 0) > 0,
      properties: {
        ...schema.properties,
        ...Object.assign({}, ...(variants ?? []).map((v) => v.properties)),
      },
    });
  }
  return routes;
}

/** A value of the schema's shape (its validity does not matter: each case breaks the body anyway). */
function sample(schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 4) return 'x';
  if (schema.enum?.length) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.length) return sample(options[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object')
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, item]) => [name, sample(item, depth + 1)]),
    );
  if (type === 'array') return [sample(schema.items, depth + 1)];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return 'x';
}

export function baseBody(route: PostRoute): Record<string, unknown> {
  return Object.fromEntries(Object.entries(route.properties).map(([name, schema]) => [name, sample(schema)]));
}

/** Text with a character no column can store somewhere in it. */
const unstorable = fc
  .tuple(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uDBFF\u0041'),
    fc.string({ maxLength: 12 }),
  )
  .map(([a, bad, b]) => `${a}${bad}${b}`);

const unknownName = fc.stringMatching(/^[a-z]{1,12}$/).map((word) => `zz_${word}`);
const jsonValue = fc.jsonValue({ maxDepth: 2 });
const jsonTypes = fc.constantFrom(
  'application/json',
  'application/json;',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json ; charset=UTF-8',
);
const foreignTypes = fc.constantFrom(
  'text/plain',
  'application/xml',
  'application/jsonp',
  'json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'application/json-seq',
  '*/*',
);

export interface Ids {
  /** A real id for the path parameter of this route, by the path segment before it. */
  idFor(template: string): string;
}

export type Auth = 'secret' | 'public' | 'none' | 'garbage' | 'basic';

export interface BadCase {
  kind: string;
  route: string;
  auth: Auth;
  request: Omit<RawRequest, 'headers'> & { headers: Record<string, string> };
}

function fillPath(route: PostRoute, ids: Ids, override?: string): string {
  let path = `/v1${route.template}`;
  for (const param of route.params)
    path = path.replace(`{${param}}`, override ?? encodeURIComponent(ids.idFor(route.template)));
  return path;
}

function json(body: unknown, contentType: string) {
  return { headers: { 'content-type': contentType }, body: JSON.stringify(body) };
}

/** One generated bad request for a route. */
export function badCase(route: PostRoute, ids: Ids): fc.Arbitrary<BadCase> {
  const base = baseBody(route);
  const names = Object.keys(route.properties);
  const path = fillPath(route, ids);
  const kinds: fc.Arbitrary<Omit<BadCase, 'route' | 'auth'>>[] = [
    fc.tuple(unknownName, jsonValue, jsonTypes).map(([name, value, type]) => ({
      kind: 'unknown field',
      request: { method: 'POST', path, ...json({ ...base, [name]: value }, type) },
    })),
    fc
      .tuple(
        unstorable,
        fc.option(fc.constantFrom(...(names.length ? names : ['zz'])), { nil: undefined }),
        jsonTypes,
      )
      .map(([text, name, type]) => ({
        kind: 'unstorable text',
        request: {
          method: 'POST',
          path,
          // In a field's value, in a key of its own, or in metadata.
          ...json(
            name === undefined
              ? { ...base, [text]: 'x' }
              : name === 'metadata'
                ? { ...base, metadata: { note: text } }
                : { ...base, [name]: text },
            type,
          ),
        },
      })),
    ...(names.length
      ? [
          fc.tuple(fc.constantFrom(...names), unknownName, jsonTypes).map(([name, inner, type]) => ({
            kind: 'wrong type',
            request: { method: 'POST', path, ...json({ ...base, [name]: { [inner]: [1, {}] } }, type) },
          })),
        ]
      : []),
    // A proper prefix of an object's text (never closed) with a tail that cannot close it.
    fc
      .tuple(fc.nat(), fc.constantFrom('', ',', 'x', '{"a":', '\u0000'), jsonTypes)
      .map(([cut, tail, type]) => {
        const text = JSON.stringify({ ...base, zz_cut: 'x' });
        return {
          kind: 'malformed json',
          request: {
            method: 'POST',
            path,
            headers: { 'content-type': type },
            body: text.slice(0, 1 + (cut % (text.length - 1))) + tail,
          },
        };
      }),
    fc
      .tuple(
        fc.oneof(
          fc.array(jsonValue, { maxLength: 3 }),
          fc.integer(),
          fc.string(),
          fc.constant(null),
          fc.boolean(),
        ),
        jsonTypes,
      )
      .map(([value, type]) => ({
        kind: 'not an object',
        request: { method: 'POST', path, ...json(value, type) },
      })),
    fc.tuple(foreignTypes, unknownName, fc.boolean()).map(([type, name, asForm]) => ({
      kind: 'foreign media type',
      request: {
        method: 'POST',
        path,
        headers: { 'content-type': type },
        body: asForm ? `${name}=1` : JSON.stringify({ ...base, [name]: 1 }),
      },
    })),
    fc
      .tuple(unknownName, fc.integer({ min: 64 * 1024, max: 80 * 1024 }), jsonTypes)
      .map(([name, size, type]) => ({
        kind: 'too large',
        request: { method: 'POST', path, ...json({ ...base, [name]: 'x'.repeat(size) }, type) },
      })),
    fc
      .tuple(fc.constantFrom('%00', 'x%00y', '%00%00'), fc.constantFrom('path', 'query'))
      .map(([bad, where]) => ({
        kind: `unstorable ${where}`,
        request: {
          method: 'POST',
          path: where === 'path' && route.params.length ? fillPath(route, ids, bad) : `${path}?zz=${bad}`,
          ...json(base, 'application/json'),
        },
      })),
    fc.tuple(fc.integer({ min: 256, max: 400 }), unknownName).map(([length, name]) => ({
      kind: 'bad idempotency key',
      request: {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(length) },
        body: JSON.stringify({ ...base, [name]: 1 }),
      },
    })),
  ];
  if (route.bodyRequired && route.emptyRefused) {
    kinds.push(
      fc
        .constantFrom<[string | null, string | undefined]>(
          [null, undefined],
          [null, ''],
          ['application/json', ''],
          ['application/json;', ''],
          ['application/json;', '{}'],
          ['application/json', '   '],
        )
        .map(([type, body]) => ({
          kind: 'missing body',
          request: {
            method: 'POST',
            path,
            headers: type === null ? ({} as Record<string, string>) : { 'content-type': type },
            ...(body !== undefined ? { body } : {}),
          },
        })),
    );
  }
  const auth = fc.constantFrom<Auth>(
    'secret',
    'secret',
    'secret',
    'secret',
    'secret',
    'secret',
    'public',
    'none',
    'garbage',
    'basic',
  );
  return fc
    .tuple(fc.oneof(...kinds), auth)
    .map(([made, key]) => ({ ...made, route: route.template, auth: key }));
}
