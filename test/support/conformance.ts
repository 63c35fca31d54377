import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * The contract check every REST test runs through: each answer the harness receives is compared
 * with the server's own OpenAPI document — its status must be one the operation lists, an error's
 * code one that status lists, the required headers present, and the body valid against the
 * operation's schema (JSON Schema 2020-12, checked by Ajv). Webhook bodies are checked against the
 * document's `webhooks` entry for their type. A problem fails the test that met it.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON walked by key
type Json = any;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

interface Template {
  path: string;
  pattern: RegExp;
  literalSegments: number;
}

const pointer = (...tokens: string[]) =>
  tokens.map((token) => encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/');

export class Conformance {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }));
    this.ajv.addSchema(document, 'openapi');
    this.templates = Object.keys(document.paths ?? {})
      .map((path) => ({
        path,
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literalSegments: path.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
      }))
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#/${ref}` });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /** The documented operation a request reached (`/v1/…` path, query ignored), if any. */
  operationOf(method: string, url: string): { path: string; operation: Json } | undefined {
    const path = new URL(url, 'http://x').pathname.replace(/^\/v1(?=\/)/, '');
    const template = this.templates.find((candidate) => candidate.pattern.test(path));
    const operation = template && this.document.paths[template.path]?.[method.toLowerCase()];
    return operation ? { path: template.path, operation } : undefined;
  }

  /** What is wrong with an answer to `method url` (empty when it conforms, or is undocumented). */
  check(method: string, url: string, answer: Answer): string[] {
    if (!new URL(url, 'http://x').pathname.startsWith('/v1/')) return [];
    const found = this.operationOf(method, url);
    if (!found) return [];
    const where = `${method.toUpperCase()} ${found.path} → ${answer.status}`;
    const response = found.operation.responses?.[String(answer.status)];
    if (!response) return [`${where}: status not documented (${JSON.stringify(answer.body)?.slice(0, 300)})`];
    const problems: string[] = [];
    const codes: string[] | undefined = response['x-error-codes'];
    const code = (answer.body as Json)?.error?.code;
    if (codes && !codes.includes(code)) problems.push(`${where}: error code ${code} not documented`);
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const spec = header.$ref ? this.resolve(header.$ref) : header;
      if (spec.required && !answer.headers.has(name)) problems.push(`${where}: header ${name} missing`);
    }
    const schemaAt = pointer('paths', found.path, method.toLowerCase(), 'responses', String(answer.status));
    if (response.content?.['application/json']?.schema) {
      const validate = this.validator(`${schemaAt}/content/${pointer('application/json')}/schema`);
      if (!validate(answer.body))
        problems.push(`${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`);
    }
    return problems;
  }

  /**
   * What is wrong with a webhook delivery (empty when it matches its type's entry): the body against
   * the entry's payload schema and, when given, the headers against its header parameters (the
   * Standard Webhooks headers) and its media type.
   */
  checkWebhook(body: unknown, headers?: Record<string, string | string[] | undefined> | Headers): string[] {
    const type = (body as Json)?.type;
    const entry = this.document.webhooks?.[type]?.post;
    if (!entry) return [`webhook type ${type} not documented`];
    const validate = this.validator(
      `${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`,
    );
    const problems = validate(body)
      ? []
      : [`webhook ${type}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`];
    if (headers) problems.push(...this.webhookHeaderProblems(type, entry, headerText(headers)));
    return problems;
  }

  private webhookHeaderProblems(type: string, entry: Json, header: (name: string) => string | undefined) {
    const problems: string[] = [];
    const mediaType = header('content-type')?.split(';')[0]?.trim();
    if (!mediaType || !entry.requestBody?.content?.[mediaType])
      problems.push(`webhook ${type}: content-type ${mediaType} not documented`);
    (entry.parameters ?? []).forEach((parameter: Json, index: number) => {
      const spec = parameter.$ref ? this.resolve(parameter.$ref) : parameter;
      if (spec.in !== 'header') return;
      const text = header(spec.name);
      if (text === undefined) {
        if (spec.required) problems.push(`webhook ${type}: header ${spec.name} missing`);
        return;
      }
      const validate = this.validator(
        pointer('webhooks', type, 'post', 'parameters', String(index), 'schema'),
      );
      // A header is text: one whose schema is a number is compared as the number it spells.
      const numeric = ['integer', 'number'].includes(spec.schema?.type) && /^-?\d+(\.\d+)?$/.test(text);
      if (!validate(numeric ? Number(text) : text))
        problems.push(
          `webhook ${type}: ${this.ajv.errorsText(validate.errors, { separator: '; ', dataVar: `header ${spec.name}` })}`,
        );
    });
    return problems;
  }

  private resolve(ref: string): Json {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce(
        (node: Json, token) => node?.[token.replaceAll('~1', '/').replaceAll('~0', '~')],
        this.document,
      );
  }
}

/** A case-insensitive reader of headers as fetch or node:http gives them. */
function headerText(
  headers: Record<string, string | string[] | undefined> | Headers,
): (name: string) => string | undefined {
  if (headers instanceof Headers) return (name) => headers.get(name) ?? undefined;
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => {
    const value = lower.get(name.toLowerCase());
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

let shared: Conformance | undefined;

/** The check for this test process, built from the first document the suite reads. */
export async function conformance(readDocument: () => Promise<unknown>): Promise<Conformance> {
  shared ??= new Conformance(await readDocument());
  return shared;
}

/** Fails the test when an answer drifted from the document. */
export function assertConforms(checker: Conformance, method: string, url: string, answer: Answer): void {
  const problems = checker.check(method, url, answer);
  if (problems.length > 0)
    throw new Error(`The answer does not match the OpenAPI document:\n${problems.join('\n')}`);
}
