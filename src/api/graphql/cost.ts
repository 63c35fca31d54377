import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MAX_NODE_IDS } from '../../graphql/node.ts';
import { ERROR_REGISTRY, SandbankError } from '../../kernel/errors.ts';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../kernel/pagination.ts';

/**
 * What an operation will read, counted before any resolver runs, once its variables are known
 * (docs/reference/graphql.md, "Query cost"):
 *
 *   - every object a field answers counts 1; a scalar or an enum counts nothing (it comes with its
 *     object), and so do `__typename` and introspection;
 *   - a field with `first` or `last` (a connection) counts 1, and each of its edges what its node
 *     counts, `first` (or `last`) times: 20 when neither is given, at most 100 (a page's most);
 *   - `nodes(ids:)` counts one object per id, from the literal list or the variable's value;
 *   - any other list of objects counts LIST_ITEMS items;
 *   - what a field's selection counts is multiplied by how many objects the field answers, so
 *     a connection inside a connection counts the product of their sizes.
 *
 * A fragment on an interface or union counts as if it applied to every object. Skipped fields
 * (`@skip(if: true)`, `@include(if: false)`) count nothing.
 */

/** The most an operation may cost. */
export const MAX_QUERY_COST = 1000;

/** What a list without a size argument is counted as holding. */
export const LIST_ITEMS = 5;

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Set when a list field asks for more ids than nodes(ids:) takes: its size. */
  tooManyIds: number | null;
  /**
   * What each fragment costs, by name and page size: counted once however often it is spread
   * (a fragment spreading another twice, and so on, would otherwise take exponential time).
   */
  fragmentCosts: Map<string, number>;
}

/** The cost of one operation of a validated document, with its (raw) variables. */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Record<string, unknown> | null | undefined,
): { cost: number; tooManyIds: number | null } {
  const operation = getOperationAST(document, operationName);
  if (!operation) return { cost: 0, tooManyIds: null };
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  // Wrong variables: execution refuses them before any resolver runs.
  if (coerced.errors) return { cost: 0, tooManyIds: null };
  const root = schema.getRootType(operation.operation);
  if (!root) return { cost: 0, tooManyIds: null };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const walk: Walk = {
    schema,
    fragments,
    variables: coerced.coerced,
    tooManyIds: null,
    fragmentCosts: new Map(),
  };
  return { cost: selectionCost(walk, operation.selectionSet, root, null), tooManyIds: walk.tooManyIds };
}

/** `edges` is the size of the page when the selection is a connection's (its list holds that many). */
function selectionCost(
  walk: Walk,
  selectionSet: SelectionSetNode,
  type: GraphQLNamedType,
  edges: number | null,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (!included(walk, selection)) continue;
    if (selection.kind === Kind.FIELD) total += fieldCost(walk, selection, type, edges);
    else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition
        ? walk.schema.getType(selection.typeCondition.name.value)
        : type;
      total += selectionCost(walk, selection.selectionSet, condition ?? type, edges);
    } else total += fragmentCost(walk, selection.name.value, edges);
  }
  return total;
}

function fragmentCost(walk: Walk, name: string, edges: number | null): number {
  const key = `${name} ${edges}`;
  const known = walk.fragmentCosts.get(key);
  if (known !== undefined) return known;
  const fragment = walk.fragments.get(name);
  const condition = fragment && walk.schema.getType(fragment.typeCondition.name.value);
  const cost = fragment && condition ? selectionCost(walk, fragment.selectionSet, condition, edges) : 0;
  walk.fragmentCosts.set(key, cost);
  return cost;
}

function included(walk: Walk, node: Parameters<typeof getDirectiveValues>[1]): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, walk.variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, walk.variables)?.if === false) return false;
  } catch {
    // A wrong directive argument fails validation or execution, not the count.
  }
  return true;
}

function argumentsOf(
  walk: Walk,
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
): Record<string, unknown> {
  try {
    return getArgumentValues(field, node, walk.variables);
  } catch {
    return {}; // execution refuses the arguments before the resolver runs
  }
}

/** A page size as counted: the argument when it is a positive integer, at most a page's most. */
function pageSize(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? Math.min(value, MAX_PAGE_LIMIT)
    : null;
}

function fieldCost(walk: Walk, node: FieldNode, parent: GraphQLNamedType, edges: number | null): number {
  if (node.name.value.startsWith('__')) return 0;
  if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
  const field = parent.getFields()[node.name.value];
  if (!field) return 0;
  const type = getNamedType(field.type);
  if (isLeafType(type)) return 0;
  const args = argumentsOf(walk, field, node);
  const paged = field.args.some((arg) => arg.name === 'first' || arg.name === 'last');
  const page = paged ? (pageSize(args.first) ?? pageSize(args.last) ?? DEFAULT_PAGE_LIMIT) : null;
  const list = isListType(getNullableType(field.type));
  let items = 1;
  let own = 1;
  if (list) {
    if (Array.isArray(args.ids)) {
      items = args.ids.length;
      if (items > MAX_NODE_IDS) walk.tooManyIds = Math.max(walk.tooManyIds ?? 0, items);
    } else if (edges !== null) {
      // A connection's edges: the connection counted itself, each edge counts what its node counts.
      items = edges;
      own = 0;
    } else items = page ?? LIST_ITEMS;
  }
  const selection = node.selectionSet ? selectionCost(walk, node.selectionSet, type, list ? null : page) : 0;
  return items * (own + selection);
}

/** The refusal, in GraphQL's shape, with the HTTP status Yoga answers it with. */
function refusal(error: SandbankError, extra: Record<string, unknown> = {}): ExecutionResult {
  return {
    errors: [
      new GraphQLError(error.message, {
        extensions: {
          code: error.code,
          type: ERROR_REGISTRY[error.code].type,
          status: error.status,
          ...(error.param ? { param: error.param } : {}),
          ...extra,
          http: { status: error.status },
        },
      }),
    ],
  };
}

/** Why an operation may not run, or null when it may. */
export function costRefusal(args: ExecutionArgs, limit: number): ExecutionResult | null {
  const { cost, tooManyIds } = operationCost(
    args.schema,
    args.document,
    args.operationName,
    args.variableValues,
  );
  if (tooManyIds !== null)
    return refusal(
      new SandbankError('parameter_invalid', {
        param: 'ids',
        message: `nodes takes at most ${MAX_NODE_IDS} ids; ${tooManyIds} were given.`,
      }),
    );
  if (cost <= limit) return null;
  return refusal(
    new SandbankError('query_rejected', {
      message: `Query cost ${cost} exceeds the limit ${limit}: ask for fewer objects (smaller pages, fewer ids or aliases).`,
    }),
    { cost, limit },
  );
}

/**
 * Refuses an operation (query, mutation or subscription, over HTTP or graphql-ws) whose cost is
 * over `limit`, once its variables are known and before any resolver runs: `query_rejected`, the
 * message and `extensions.cost` / `extensions.limit` naming both numbers.
 */
export function queryCostPlugin(limit = MAX_QUERY_COST): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = costRefusal(args, limit);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = costRefusal(args, limit);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}
