import { SandbankError } from '../kernel/errors.ts';
import { type IdKind, idPrefix } from '../kernel/ids.ts';
import type { ServiceContext } from '../modules/context.ts';
import { builder } from './builder.ts';
import { serviceContext } from './context.ts';

/**
 * Relay's object identification with the API's own ids: an id is `<prefix>_<ULID>` (`cp_01J…`,
 * kernel/ids.ts), and its prefix names its kind, so `node(id:)` needs no global id of its own. Each
 * module registers its kinds (nodeKind) with a read of several objects of the caller's merchant by
 * their ids, in one query (`id IN (…) AND merchant_id = …`): `nodes(ids:)` groups the ids by kind and
 * reads each kind once, whatever the number of ids. Another merchant's id answers null, as an
 * unknown or malformed one does.
 */

export interface NodeShape {
  id: string;
}

interface NodeKind {
  typeName: string;
  load: (svc: ServiceContext, ids: string[]) => Promise<NodeShape[]>;
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
 * NodeRef among its interfaces), `load` the module's read of the caller's merchant's objects among
 * `ids` (distinct, all of this kind's prefix), in one query of the kind's table, answering those it
 * finds in any order and leaving out the others.
 */
export function nodeKind<T extends NodeShape>(
  kind: IdKind,
  type: { name: string; $inferType: T },
  load: (svc: ServiceContext, ids: string[]) => Promise<T[]>,
): void {
  const prefix = idPrefix(kind);
  if (kinds.has(prefix)) throw new Error(`node kind ${prefix}_ is registered twice`);
  kinds.set(prefix, { typeName: type.name, load });
}

/** The type names of the registered kinds, by id prefix (for tests). */
export function nodeTypesByPrefix(): Map<string, string> {
  return new Map([...kinds].map(([prefix, kind]) => [prefix, kind.typeName]));
}

/**
 * The caller's objects with these ids, in the order asked, null where there is none (unknown,
 * malformed, another merchant's). The ids are grouped by kind, and each kind is read once, one kind
 * after the other: a request holds one database connection at a time.
 */
async function loadNodes(svc: ServiceContext, ids: readonly string[]): Promise<(NodeShape | null)[]> {
  const wanted = new Map<string, Set<string>>();
  for (const id of ids) {
    const prefix = prefixOf(id);
    if (prefix === null || !kinds.has(prefix)) continue;
    const group = wanted.get(prefix);
    if (group) group.add(id);
    else wanted.set(prefix, new Set([id]));
  }
  const found = new Map<string, NodeShape>();
  for (const [prefix, group] of wanted) {
    const kind = kinds.get(prefix) as NodeKind;
    // Only what was asked: a read that also finds by another key (a collection by its reference)
    // must not answer for it.
    for (const node of await kind.load(svc, [...group])) if (group.has(node.id)) found.set(node.id, node);
  }
  return ids.map((id) => found.get(id) ?? null);
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description:
      "Any object of the merchant by its id, whatever its kind; null when the merchant has none with this id (unknown, malformed, or another merchant's).",
    args: { id: t.arg.id({ required: true, description: 'The id, e.g. "cp_01J…".' }) },
    resolve: async (_root, args, ctx) => (await loadNodes(serviceContext(ctx), [String(args.id)]))[0] ?? null,
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
      return loadNodes(serviceContext(ctx), args.ids.map(String));
    },
  }),
}));
