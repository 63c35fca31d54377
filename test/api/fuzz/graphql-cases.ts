import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isUnionType,
} from 'graphql';

/**
 * Generated bad GraphQL mutations. As for REST, each case is invalid by construction (text no column
 * can store in a variable or a literal, an unknown input field or argument, a value of the wrong
 * type, a missing required variable, a document that does not parse), so none may run a resolver.
 */

type Value = unknown;

/** A real id for an argument of a mutation, so that cases get as far as the mutation allows. */
export type IdFor = (mutation: string, argument: string) => string | undefined;

export interface GraphQLCase {
  kind: string;
  mutation: string;
  query: string;
  variables: Record<string, Value>;
}

const unstorable = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('\u0000', '\uD800', '\uDC00'),
    fc.string({ maxLength: 8 }),
  )
  .map(([a, bad, b]) => `${a}${bad}${b}`);

/** A value of the input type (valid or not does not matter: every case breaks it somewhere). */
function sample(type: GraphQLInputType, depth = 0): Value {
  if (isNonNullType(type)) return sample(type.ofType, depth);
  if (isListType(type)) return [sample(type.ofType, depth + 1)];
  if (isEnumType(type)) return type.getValues()[0]?.name;
  if (isInputObjectType(type)) {
    if (depth > 3) return {};
    return Object.fromEntries(
      Object.values(type.getFields()).map((field) => [field.name, sample(field.type, depth + 1)]),
    );
  }
  switch (getNamedType(type).name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    case 'DateTime':
      return '2031-01-01T00:00:00.000Z';
    case 'Decimal':
      return '1.00';
    case 'JSONObject':
      return { note: 'x' };
    default:
      return 'x';
  }
}

type Path = (string | number)[];

/**
 * The paths in a value of the input type at which `wanted` says yes: walked through lists and the
 * fields of input objects, with the type of each place.
 */
function pathsWhere(
  type: GraphQLInputType,
  value: Value,
  wanted: (type: GraphQLInputType) => boolean,
  path: Path = [],
): Path[] {
  const inner = isNonNullType(type) ? type.ofType : type;
  const here = wanted(inner) ? [path] : [];
  if (isListType(inner) && Array.isArray(value))
    return [...here, ...value.flatMap((item, i) => pathsWhere(inner.ofType, item, wanted, [...path, i]))];
  if (!isInputObjectType(inner)) return here;
  const fields = inner.getFields();
  return [
    ...here,
    ...Object.entries(value as Record<string, Value>).flatMap(([name, item]) =>
      fields[name] ? pathsWhere(fields[name].type, item, wanted, [...path, name]) : [],
    ),
  ];
}

/** Leaves whose value is text (String, ID; enums aside). */
const isText = (type: GraphQLInputType) =>
  !isListType(type) && !isInputObjectType(type) && ['String', 'ID'].includes(getNamedType(type).name);

function setAt(root: Record<string, Value>, path: Path, value: Value): Record<string, Value> {
  const copy = structuredClone(root);
  let at: Record<string | number, Value> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, Value>;
  const last = path.at(-1);
  if (last === undefined) return copy;
  at[last] = value;
  return copy;
}

/** A GraphQL literal of a value of the type (enums bare, strings escaped). */
function literal(type: GraphQLInputType, value: Value): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null) return 'null';
  if (isListType(inner))
    return `[${(value as Value[]).map((item) => literal(inner.ofType, item)).join(', ')}]`;
  if (isEnumType(inner)) return String(value);
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    return `{${Object.entries(value as Record<string, Value>)
      .map(
        ([name, item]) =>
          `${name}: ${fields[name] ? literal(fields[name].type, item) : JSON.stringify(item)}`,
      )
      .join(', ')}}`;
  }
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, Value>)
      .map(([name, item]) => `${name}: ${JSON.stringify(item)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** What a case selects: the typed error of a mutation that has one (its code and HTTP status). */
function selection(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isLeafType(type)) return '';
  const typedError = isUnionType(type) && type.getTypes().some((member) => member.name === 'SandbankError');
  return typedError ? ' { __typename ... on SandbankError { code httpStatus } }' : ' { __typename }';
}

function operation(
  field: GraphQLField<unknown, unknown>,
  args: readonly GraphQLArgument[],
  inline?: Record<string, Value>,
) {
  if (args.length === 0) return `mutation { ${field.name}${selection(field)} }`;
  if (inline) {
    const list = args.map((arg) => `${arg.name}: ${literal(arg.type, inline[arg.name])}`).join(', ');
    return `mutation { ${field.name}(${list})${selection(field)} }`;
  }
  const declared = args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  return `mutation Fuzz(${declared}) { ${field.name}(${passed})${selection(field)} }`;
}

/** Bad cases for one mutation field of the schema. */
export function badMutation(schema: GraphQLSchema, name: string, idFor: IdFor): fc.Arbitrary<GraphQLCase> {
  const field = schema.getMutationType()?.getFields()[name];
  if (!field) throw new Error(`No mutation ${name}`);
  const args = field.args;
  const base: Record<string, Value> = Object.fromEntries(
    args.map((arg) => [arg.name, idFor(name, arg.name) ?? sample(arg.type)]),
  );
  const leaves = args.flatMap((arg) => pathsWhere(arg.type, base[arg.name], isText, [arg.name]));
  const objects = args.flatMap((arg) => pathsWhere(arg.type, base[arg.name], isInputObjectType, [arg.name]));
  const required = args.filter((arg) => isNonNullType(arg.type)).map((arg) => arg.name);
  const variablesCase = (kind: string, variables: Record<string, Value>) => ({
    kind,
    mutation: name,
    query: operation(field, args),
    variables,
  });
  const kinds: fc.Arbitrary<GraphQLCase>[] = [
    // An argument the mutation does not have, with any literal (unstorable text included).
    fc
      .tuple(fc.stringMatching(/^[a-z]{1,10}$/), fc.oneof(unstorable, fc.string({ maxLength: 10 })))
      .map(([word, text]) => ({
        kind: 'unknown argument',
        mutation: name,
        query: `mutation { ${name}(zz_${word}: ${JSON.stringify(text)})${selection(field)} }`,
        variables: {},
      })),
    fc.tuple(fc.nat(), fc.constantFrom('{', ')', '$', '"', '@@')).map(([cut, tail]) => {
      const query = operation(field, args);
      return {
        kind: 'syntax error',
        mutation: name,
        query: query.slice(0, cut % query.length) + tail,
        variables: base,
      };
    }),
  ];
  if (leaves.length) {
    kinds.push(
      fc
        .tuple(fc.constantFrom(...leaves), unstorable)
        .map(([path, text]) => variablesCase('unstorable variable', setAt(base, path, text))),
      fc.tuple(fc.constantFrom(...leaves), unstorable).map(([path, text]) => ({
        kind: 'unstorable literal',
        mutation: name,
        query: operation(field, args, setAt(base, path, text)),
        variables: {},
      })),
      fc
        .tuple(fc.constantFrom(...leaves), fc.stringMatching(/^[a-z]{1,8}$/))
        .map(([path, word]) => variablesCase('wrong type', setAt(base, path, { [`zz_${word}`]: [1] }))),
    );
  }
  if (objects.length) {
    kinds.push(
      fc
        .tuple(fc.constantFrom(...objects), fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue({ maxDepth: 1 }))
        .map(([path, word, value]) => {
          const variables = structuredClone(base);
          let at = variables as Record<string | number, Value>;
          for (const key of path) at = at[key] as Record<string | number, Value>;
          at[`zz_${word}`] = value;
          return variablesCase('unknown input field', variables);
        }),
    );
  }
  if (required.length) {
    kinds.push(
      fc.constantFrom(...required).map((missing) => {
        const { [missing]: _dropped, ...rest } = base;
        return variablesCase('missing required variable', rest);
      }),
    );
  }
  return fc.oneof(...kinds);
}
