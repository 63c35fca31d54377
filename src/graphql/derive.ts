import { z } from 'zod';
import { camelCase, type ObjectDecl, type RenderContext } from '../kernel/declare.ts';
import { wireAmount } from '../kernel/wire-schemas.ts';
import { builder, type GraphQLContext } from './builder.ts';
import { enumOfValues } from './enums.ts';
import { CurrencyCodeEnum, MoneyRef } from './scalars.ts';

/**
 * GraphQL types derived from the declarations: an object type from an object declaration
 * (src/kernel/declare.ts), an input type from a zod body schema. Each field keeps its one
 * description; what GraphQL alone has (relations, GraphQL-only fields) is added by hand (`extra`).
 */

// biome-ignore lint/suspicious/noExplicitAny: the derived types are built from data, not from Pothos's inference.
type AnyRef = any;
// biome-ignore lint/suspicious/noExplicitAny: see AnyRef.
type FieldBuilder = any;

/** Object types derived so far, by name (operations name the type they answer with). */
const objectTypes = new Map<string, AnyRef>();
/** Input types of nested schemas (a card, a bank account), by the schema they stand for; an amount is a Decimal. */
const inputTypes = new WeakMap<z.ZodType, AnyRef>([[wireAmount, 'Decimal']]);

export const renderContextOf = (ctx: GraphQLContext): RenderContext => ({ publicUrl: ctx.deps.publicUrl });

/**
 * The description a zod schema carries (on an optional wrapper, or on what it wraps; through a lazy
 * schema, one derived from the registered modules, to what it stands for).
 */
export function descriptionOf(schema: z.ZodType): string | undefined {
  const wrapped =
    schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault
      ? schema.unwrap()
      : schema;
  const inner = wrapped instanceof z.ZodLazy ? wrapped.unwrap() : wrapped;
  return schema.description ?? (wrapped as z.ZodType).description ?? (inner as z.ZodType).description;
}

export interface ObjectOptions<Row> {
  interfaces?: AnyRef[];
  isTypeOf?: (value: unknown) => boolean;
  /** Fields an interface answers (with its own type), or GraphQL leaves out. */
  omit?: readonly string[];
  /** The enum type of a field, where its values alone do not name one. */
  enums?: Record<string, AnyRef>;
  /** Relations and GraphQL-only fields. */
  extra?: (t: FieldBuilder) => Record<string, unknown>;
  /** The row type as GraphQL sees it (a row with its loaded relations). */
  row?: (row: Row) => Row;
  /** GraphQL's name of a field where it is not the camelCase of REST's (`dispute` → `disputeId`). */
  names?: Record<string, string>;
}

function fieldType(key: string, schema: z.ZodType, kind: string, enums: Record<string, AnyRef>): AnyRef {
  if (enums[key]) return enums[key];
  if (kind === 'Money') return MoneyRef;
  if (kind === 'StringList') return ['String'];
  if (kind !== 'enum') return kind;
  const inner = schema instanceof z.ZodNullable ? (schema.unwrap() as z.ZodType) : schema;
  const values = (inner as z.ZodEnum).options as string[];
  return enumOfValues(values, key);
}

/** The GraphQL object type of an object declaration, with its derived fields and `extra`. */
export function graphqlObject<Row>(decl: ObjectDecl<Row>, options: ObjectOptions<Row> = {}) {
  const ref = builder.objectRef<Row>(decl.name);
  ref.implement({
    description: decl.description,
    ...(options.interfaces ? { interfaces: options.interfaces } : {}),
    ...(options.isTypeOf ? { isTypeOf: options.isTypeOf } : {}),
    fields: (t: FieldBuilder) => {
      const fields: Record<string, unknown> = {};
      for (const [key, f] of Object.entries(decl.fields)) {
        if (f.graphql === false || options.omit?.includes(key)) continue;
        const description = descriptionOf(f.wire);
        fields[options.names?.[key] ?? camelCase(key)] = t.field({
          type: fieldType(key, f.wire, f.graphql, options.enums ?? {}),
          nullable: f.nullable,
          ...(description ? { description } : {}),
          resolve: (row: Row, _args: unknown, ctx: GraphQLContext) => f.value(row, renderContextOf(ctx)),
        });
      }
      return { ...fields, ...(options.extra?.(t) ?? {}) };
    },
  } as never);
  objectTypes.set(decl.name, ref);
  return ref;
}

/** Names a type written by hand (an operation's own answer, a filter's enum) for the operations that use it. */
export function registerObjectType(name: string, ref: AnyRef): void {
  objectTypes.set(name, ref);
}

export function objectTypeNamed(name: string): AnyRef {
  const ref = objectTypes.get(name);
  if (!ref)
    throw new Error(`No GraphQL object type ${name} was derived (graphqlObject) before its operations.`);
  return ref;
}

/** Declares the input type that stands for a body schema (a card, a bank account; an id as an ID). */
export function inputFor(schema: z.ZodType, ref: AnyRef): void {
  inputTypes.set(schema, ref);
}

/** Where a body field's name alone says its type: the same on every operation. */
const BY_NAME: Record<string, AnyRef> = {
  amount: 'Decimal',
  id: 'ID',
  currency: CurrencyCodeEnum,
  metadata: 'JSONObject',
};

function inputType(key: string, schema: z.ZodType): AnyRef {
  const registered = inputTypes.get(schema);
  if (registered) return registered;
  if (schema instanceof z.ZodNullable) return inputType(key, schema.unwrap() as z.ZodType);
  // X or null (REST's null; GraphQL's is "not given"): X.
  const notNull = schema instanceof z.ZodUnion ? schema.options.filter((o) => !(o instanceof z.ZodNull)) : [];
  if (notNull.length === 1) return inputType(key, notNull[0] as z.ZodType);
  if (schema instanceof z.ZodArray) return [inputType(key, schema.element as z.ZodType)];
  if (BY_NAME[key]) return BY_NAME[key];
  if (schema instanceof z.ZodUnion && schema.options.some((o) => (o as z.ZodNumber).isInt)) return 'Int';
  if (schema instanceof z.ZodNumber) return schema.isInt ? 'Int' : 'Float';
  if (schema instanceof z.ZodBoolean) return 'Boolean';
  if (schema instanceof z.ZodISODateTime) return 'DateTime';
  if (schema instanceof z.ZodEnum) return enumOfValues(schema.options as string[], key);
  if (schema instanceof z.ZodString || schema instanceof z.ZodStringFormat || schema instanceof z.ZodPipe)
    return 'String';
  throw new Error(`The body field ${key} has no GraphQL input type: declare one with inputFor.`);
}

/** A field taking an inline object or a saved one's id (`counterparty`): its inline object. */
function inlineOrId(schema: z.ZodType): z.ZodObject | undefined {
  const [id, inline] = schema instanceof z.ZodUnion ? schema.options : [];
  return id instanceof z.ZodString && inline instanceof z.ZodObject ? inline : undefined;
}

/** GraphQL's argument for each saved id (`counterpartyId`), moved to its REST field (`counterparty`). */
export function idArguments(shape: z.ZodRawShape): Record<string, string> {
  return Object.fromEntries(
    Object.entries(shape)
      .filter(([, value]) => inlineOrId(value as z.ZodType))
      .map(([key]) => [`${camelCase(key)}Id`, key]),
  );
}

/**
 * The GraphQL fields (arguments or input fields) of a zod object's fields, camelCase, with their
 * descriptions. A field taking an inline object or a saved one's id is two, both optional: the
 * object (`counterparty`) and the id (`counterpartyId`).
 */
export function inputFields(
  make: (options: Record<string, unknown>) => unknown,
  shape: z.ZodRawShape,
  skip: readonly string[] = [],
  types: Record<string, AnyRef> = {},
) {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(shape)) {
    if (skip.includes(key)) continue;
    const schema = value as z.ZodType;
    const optional = schema instanceof z.ZodOptional || schema instanceof z.ZodDefault;
    const unwrapped = optional ? (schema.unwrap() as z.ZodType) : schema;
    const inner = unwrapped instanceof z.ZodNullable ? (unwrapped.unwrap() as z.ZodType) : unwrapped;
    const description = descriptionOf(schema);
    const inline = inlineOrId(inner);
    if (inline) {
      fields[camelCase(key)] = make({ type: inputType(key, inline), required: false, description });
      fields[`${camelCase(key)}Id`] = make({ type: 'String', required: false, description });
      continue;
    }
    fields[camelCase(key)] = make({
      type: types[key] ?? inputType(key, inner),
      required: !optional,
      ...(description ? { description } : {}),
    });
  }
  return fields;
}

/** An input type derived from a body schema (a zod object). */
export function graphqlInput(name: string, description: string, schema: z.ZodObject) {
  return builder.inputType(name, {
    description,
    fields: (t: FieldBuilder) => inputFields((o) => t.field(o), schema.shape),
  } as never) as AnyRef;
}
