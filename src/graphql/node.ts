import { SandbankError } from '../kernel/errors.ts';
import { ID_PREFIXES, type IdKind } from '../kernel/ids.ts';
import type { ServiceContext } from '../modules/context.ts';
import { builder } from './builder.ts';
import { nullIfNotFound, serviceContext } from './context.ts';

/**
 * Relay's object identification with the API's own ids: an id is `<prefix>_<ULID>` (`cp_01J…`,
 * kernel/ids.ts), and its prefix names its kind, so `node(id:)` needs no global id of its own. Each
 * module registers its kinds (nodeKind) with the read its queries already use, which is scoped to
 * the caller's merchant: another merchant's id answers null, as an unknown or malformed one does.
 */

export interface NodeShape {
  id: string;
}

interface NodeKind {
  typeName: string;
  load: (svc: ServiceContext, id: string) => Promise<NodeShape>;
}

/** Registered kinds, by id prefix. */
const kinds = new Map<string, NodeKind>();

/** The most ids one `nodes` call resolves. */
export const MAX_NODE_IDS = 100;

/** The shape of an id: a known-looking prefix, an underscore, letters and digits (a ULID). */
const ID_SHAPE = /^([a-z]{1,10})_[0-9A-Za-z]{1,64}$/;

export const NodeRef = builder.interfaceRef<NodeShape>('Node').implement({
  description:
    'An object with an id of its own. Its prefix names its kind (cp_ a card payment, col_ a collection, …): node(id:) and nodes(ids:) find any of them.',
  resolveType: (node) => kinds.get(prefixOf(node.id) ?? '')?.typeName ?? null,
  fields: (t) => ({
    id: t.exposeID('id', {
      description:
        'The object\'s id: a prefix naming its kind, an underscore and a ULID ("cp_01J…"); stable, and what REST calls it.',
    }),
  }),
});

function prefixOf(id: string): string | null {
  return ID_SHAPE.exec(id)?.[1] ?? null;
}

/**
 * Makes the objects of one kind findable by node(id:): `type` is the object type (it must list
 * NodeRef among its interfaces), `load` the module's read of one object of the caller's merchant
 * by its id, which throws resource_not_found when the merchant has none.
 */
export function nodeKind<T extends NodeShape>(
  kind: IdKind,
  type: { name: string; $inferType: T },
  load: (svc: ServiceContext, id: string) => Promise<T>,
): void {
  const prefix = ID_PREFIXES[kind];
  if (kinds.has(prefix)) throw new Error(`node kind ${prefix}_ is registered twice`);
  kinds.set(prefix, { typeName: type.name, load });
}

/** The type names of the registered kinds, by id prefix (for tests). */
export function nodeTypesByPrefix(): Map<string, string> {
  return new Map([...kinds].map(([prefix, kind]) => [prefix, kind.typeName]));
}

/** The caller's object with this id, or null: unknown, malformed, another merchant's. */
async function loadNode(svc: ServiceContext, id: string): Promise<NodeShape | null> {
  const kind = kinds.get(prefixOf(id) ?? '');
  if (!kind) return null;
  const node = await nullIfNotFound(kind.load(svc, id));
  // A read that also finds by another key (a collection by its reference) must not answer for it.
  return node?.id === id ? node : null;
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description:
      "Any object of the merchant by its id, whatever its kind; null when the merchant has none with this id (unknown, malformed, or another merchant's).",
    args: { id: t.arg.id({ required: true, description: 'The id, e.g. "cp_01J…".' }) },
    resolve: (_root, args, ctx) => loadNode(serviceContext(ctx), String(args.id)),
  }),
  nodes: t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `Objects of the merchant by their ids (at most ${MAX_NODE_IDS}), in the order asked, each null where node(id:) would be.`,
    args: {
      ids: t.arg.idList({ required: true, description: `The ids, at most ${MAX_NODE_IDS}.` }),
    },
    resolve: (_root, args, ctx) => {
      if (args.ids.length > MAX_NODE_IDS)
        throw new SandbankError('parameter_invalid', {
          param: 'ids',
          message: `nodes takes at most ${MAX_NODE_IDS} ids; ${args.ids.length} were given.`,
        });
      const svc = serviceContext(ctx);
      return Promise.all(args.ids.map((id) => loadNode(svc, String(id))));
    },
  }),
}));
