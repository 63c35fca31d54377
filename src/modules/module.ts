import type { OpenAPIHono } from '@hono/zod-openapi';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Db } from '../db/client.ts';
import type { EventFanOut } from '../db/outbox.ts';
import type { IdPrefixClaims } from '../kernel/ids.ts';
import type { Machine } from '../kernel/state-machine.ts';
import type { RestEnv } from '../rest/types.ts';
import type { JobHandler } from './context.ts';
import type { OperationDecl } from './operation.ts';
import type { Recipe } from './recipe.ts';

/**
 * A module's manifest (`src/modules/<module>/index.ts`): what the module brings to each registry,
 * in one place. The list of modules (src/modules/index.ts) imports every manifest, and every
 * registry is derived from that list: REST mounting, GraphQL loading, job handlers, retention, the
 * events' fan-out. A manifest imports its module's files; no file of a module imports a manifest
 * or the list (test/unit/architecture.test.ts). Ordinary typed data: no codegen, no decorators.
 */

/** A batched purge of what is not kept forever (src/modules/retention.ts runs them). */
export interface RetentionRule {
  /** What it purges, as the maintenance log names it (`idempotency keys`). */
  name: string;
  /** Deletes (or blanks) up to `limit` rows in one short statement; answers how many. */
  purge: (db: Db, realNow: Date, limit: number) => Promise<number>;
}

/**
 * The events of one kind of object, `<object>.<state>`: every state of its machines, except that an
 * object announcing its creation as `<object>.created` is never announced in an initial state no
 * transition leads back to (a collection is `created`, not `pending`). `also` names the changes that
 * are not states (an authorization is `refunded` while it stays `captured`).
 */
export interface EventSource {
  object: string;
  machines: readonly Machine<string, string>[];
  createdEvent: boolean;
  also?: readonly string[];
  /** The schema of the event's `data.object` (the object's Wire). */
  wire: z.ZodType;
  /** Its place in the published list of event types (GET /v1/event_types), unique across modules. */
  order: number;
}

/** A kind of row a sandbox reset deletes: the merchant's rows of `table` (`where` narrows them). */
export interface ResetKindDecl {
  /** The name of its count in the reset's answer (`card_payments`). */
  kind: string;
  table: string;
  where?: string;
  /** The count's description in the answer. */
  description: string;
  /** Its place among the answer's counts, unique across modules. */
  order: number;
  /**
   * Whether the reset locks the merchant's rows of the table before deleting anything (rows a
   * concurrent request could attach new rows to); locked in the answer's order.
   */
  lock?: boolean;
}

export interface ModuleManifest {
  /** The module's folder under src/modules. */
  name: string;
  /** Its tables (`<module>.table.ts`); drizzle-kit finds them by glob, the tests by this list. */
  tables?: readonly PgTable[];
  /**
   * The id kinds of the objects it makes, with their prefixes (`{ merchant: 'mch' }`), each claimed
   * by one module; the manifest also adds them to IdPrefixes (src/kernel/ids.ts) for the types.
   */
  ids?: IdPrefixClaims;
  /** Its declared operations (`<module>.operations.ts`): REST routes and OpenAPI are mounted from them. */
  operations?: readonly OperationDecl[];
  /**
   * Its hand-written REST routes (`<module>.routes.ts`), for a module not (or not wholly) declared
   * yet; mounted after its operations. Adopting declarations replaces this line with `operations`.
   */
  routes?: (api: OpenAPIHono<RestEnv>) => void;
  /**
   * Loads its GraphQL file(s) (`() => import('./<module>.graphql.ts')`), which register their types
   * on the one builder: a lazy import, so that start-up and REST never load GraphQL.
   */
  graphql?: () => Promise<unknown>;
  /** What each kind of its due work does: job kind → handler (run by the scheduler). */
  jobs?: Readonly<Record<string, JobHandler>>;
  /** What of its rows is not kept forever, and the purge of each. */
  retention?: readonly RetentionRule[];
  /** What every event fans out to in the statement that writes it (one module at most: webhooks). */
  eventFanOut?: EventFanOut;
  /** The kinds of object whose events it emits, each with its machines and payload schema (webhooks). */
  events?: readonly EventSource[];
  /** Its trigger recipes (`<module>.recipes.ts`), one per event type (POST /v1/simulate/events). */
  recipes?: readonly Recipe[];
  /** What of a merchant's rows a sandbox reset deletes, kind by kind (POST /v1/simulate/reset). */
  reset?: readonly ResetKindDecl[];
}

/** A module's manifest, checked against ModuleManifest and kept as written. */
export function defineModule<const M extends ModuleManifest>(manifest: M): M {
  return manifest;
}
