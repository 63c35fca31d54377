import type { z } from 'zod';
import type { RenderContext } from '../kernel/declare.ts';
import type { ErrorCode } from '../kernel/errors.ts';
import type { FieldCodes } from '../kernel/validation.ts';
import type { ServiceContext } from './context.ts';

/**
 * One declaration per operation (docs/internals/architecture.md, "Declarations"), beside the service it
 * calls: its REST route, its input, its output object, its errors and its GraphQL field, once. The
 * REST route (with its OpenAPI entry, src/rest/mount.ts) and the GraphQL field
 * (src/graphql/mount.ts) are mounted from it. Plain typed data: no code generation.
 */

/** What a REST request hands an operation: its path parameters, query and body, each parsed. */
export interface OperationInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** What an operation answers with: an object declaration, or an answer named on its own (a union of kinds). */
export interface OutputDecl {
  name: string;
  wire: z.ZodType;
  render(row: never, rc: RenderContext): Record<string, unknown>;
}

export interface OperationDecl<P = unknown, Q = unknown, B = unknown, R = unknown> {
  /** The operationId (a generated client's method) and, unless `graphql.name` says otherwise, the GraphQL field. */
  name: string;
  method: 'get' | 'post' | 'delete';
  /** The path under /v1, with `{param}`s. */
  path: string;
  tags: string[];
  summary: string;
  /** REST's longer description of the operation (OpenAPI), where the summary is not enough. */
  description?: string;
  deprecated?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may be left out (every field of it is optional). */
  optionalBody?: boolean;
  /** The public key may call it too (REST's `publicKey`). */
  publicKey?: boolean;
  /** Schemas the body's document names (`$ref`) without using them, built when mounted: registered as components. */
  components?: () => Record<string, z.ZodType>;
  /** REST's route options (src/rest/routes.ts): a merchant's lane, its own transactions. */
  heavy?: boolean;
  ownTransactions?: boolean;
  /** Never stored for replay: refuses an Idempotency-Key (REST's header, GraphQL's). */
  refuseKey?: (key: string | null | undefined) => void;
  /** The error codes of the body's special fields. */
  codes?: FieldCodes;
  /** The codes it answers with beyond those every operation of its kind shares. */
  errors?: readonly ErrorCode[];
  /** What it answers: an object (rendered by its declaration), or a page of them (`list`). */
  output: OutputDecl;
  /**
   * A file, not a JSON body: the service answers a FileAnswer, sent as it is (REST only; `output`
   * names the object it is a file of). The media types it may come in, for the OpenAPI document.
   */
  file?: { mediaTypes: readonly string[] };
  list?: boolean;
  /** The REST answer's schema and rendering when it is not `output`'s (an object with its relations). */
  answer?: { wire: z.ZodType; render: (result: R, rc: RenderContext) => Record<string, unknown> };
  /** The service call. */
  run: (ctx: ServiceContext, input: OperationInput<P, Q, B>) => Promise<R>;
  /** The GraphQL field, or false for a REST-only operation (or one whose field is hand-written). */
  graphql:
    | false
    | {
        name?: string;
        /** The object type it answers with, when not `output`'s (a detail answered as its object). */
        returns?: string;
        /** Mutations: where the body is (`input` for an input object; default top-level arguments). */
        inputArg?: { name: string; description: string; type: string };
        /** Mutations: reload the answer of a replayed idempotency key (false: not replayed on GraphQL). */
        reload?: ((ctx: ServiceContext, id: string) => Promise<unknown>) | false;
        /** Mutations: body fields GraphQL does not take (an alias REST accepts; a `currency` only one value of is accepted). */
        omit?: readonly string[];
        /** Lists: the connection's filter arguments, each the query field it stands for (`collectionId: 'collection'`). */
        filters?: Record<string, string>;
        /** Lists: a filter's GraphQL type, by name (or a list of it), where the query field's does not say it. */
        filterTypes?: Record<string, string | [string]>;
        /** A GET answering a short list whole, not a connection (a `list`'s one page: its data). */
        many?: boolean;
      };
}

/** A file an operation answers with (`file`): its text, its media type and the name to save it as. */
export interface FileAnswer {
  body: string;
  contentType: string;
  filename: string;
}

/** An operation declaration, typed by its own schemas (ordinary data; see OperationDecl). */
export function defineOperation<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R = unknown,
>(
  decl: Omit<OperationDecl, 'params' | 'query' | 'body' | 'run' | 'answer'> & {
    params?: P;
    query?: Q;
    body?: B;
    run: (
      ctx: ServiceContext,
      input: OperationInput<
        P extends z.ZodObject ? z.output<P> : undefined,
        Q extends z.ZodObject ? z.output<Q> : undefined,
        B extends z.ZodType ? z.output<B> : undefined
      >,
    ) => Promise<R>;
    answer?: { wire: z.ZodType; render: (result: NoInfer<R>, rc: RenderContext) => Record<string, unknown> };
  },
): OperationDecl {
  return decl as unknown as OperationDecl;
}
