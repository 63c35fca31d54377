import { z } from 'zod';
import type { CurrencyCode } from './currency.ts';
import { WireDecimal } from './wire-json.ts';
import { idOf, timestamp, wireCurrency, wireDecimal, wireMetadata, wireResource } from './wire-resources.ts';

/**
 * One declaration per object (docs/internals/architecture.md, "Declarations"): its fields once, each with its
 * one description. The REST resource (its OpenAPI component, and the webhook payload of its events)
 * and the GraphQL object type are both derived from it. Plain typed data: no code generation.
 */

/** What rendering may need beyond the row: the server's public address (links with secrets). */
export interface RenderContext {
  publicUrl: string;
}

/** The GraphQL type of a field: a scalar, Money (an amount with its row's currency), or none. */
export type GraphqlKind =
  | 'String'
  | 'StringList'
  | 'Int'
  | 'Boolean'
  | 'DateTime'
  | 'Money'
  | 'JSONObject'
  | 'enum';

export interface FieldDecl<Row> {
  /** The REST wire schema (its description is the field's one description). */
  wire: z.ZodType;
  /** The GraphQL type, or false for a REST-only field. */
  graphql: GraphqlKind | false;
  nullable: boolean;
  /** The value as REST answers it (default: the row's camelCase property, rendered by kind). */
  rest: (row: Row, rc: RenderContext) => unknown;
  /** The value a GraphQL resolver answers (default: the row's camelCase property). */
  value: (row: Row, rc: RenderContext) => unknown;
}

export const camelCase = (name: string) =>
  name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
const prop = (name: string) => (row: unknown) => (row as Record<string, unknown>)[camelCase(name)];

type Get<Row> = (row: Row, rc: RenderContext) => unknown;
type Money = { amount: bigint; currency: CurrencyCode };
type Field<Row> = (name: string) => FieldDecl<Row>;

function plain<Row>(
  wire: z.ZodType,
  graphql: GraphqlKind | false,
  nullable: boolean,
  get?: Get<Row>,
): Field<Row> {
  return (name) => {
    const value = get ?? (prop(name) as Get<Row>);
    return { wire, graphql, nullable, rest: value, value };
  };
}

/** Integers, booleans, nullable enums and instants, and another object's id on both sides. */
const scalarFields = {
  int: <Row>(description: string, get?: Get<Row>) =>
    plain<Row>(z.number().int().meta({ description }), 'Int', false, get),
  nullableInt: <Row>(description: string, get?: Get<Row>) =>
    plain<Row>(z.number().int().nullable().meta({ description }), 'Int', true, get),
  boolean: <Row>(description: string, get?: Get<Row>) =>
    plain<Row>(z.boolean().meta({ description }), 'Boolean', false, get),
  nullableEnum: <Row, const V extends readonly string[]>(values: V, description: string, get?: Get<Row>) =>
    plain<Row>(
      z
        .enum(values as V & [string])
        .nullable()
        .meta({ description }),
      'enum',
      true,
      get,
    ),
  /** An instant or null: ISO 8601 text on REST, DateTime on GraphQL. */
  nullableTimestamp:
    <Row>(description: string, get?: Get<Row>): Field<Row> =>
    (name) => {
      const value = get ?? (prop(name) as Get<Row>);
      return {
        wire: timestamp.nullable().meta({ description }),
        graphql: 'DateTime',
        nullable: true,
        rest: (row, rc) => (value(row, rc) as Date | null)?.toISOString() ?? null,
        value,
      };
    },
  /** A list of strings with a wire schema of its own on REST: [String!]! on GraphQL. */
  strings: <Row>(wire: z.ZodType, get?: Get<Row>) => plain<Row>(wire, 'StringList', false, get),
  /** An amount or null (`get` says which): a wire decimal or null on REST, nullable Money on GraphQL. */
  nullableMoney:
    <Row>(description: string, get: (row: Row) => Money | null): Field<Row> =>
    () => ({
      wire: z.union([wireDecimal, z.null()]).meta({ description }),
      graphql: 'Money',
      nullable: true,
      rest: (row) => {
        const money = get(row);
        return money && WireDecimal.of(money.amount, money.currency);
      },
      value: get,
    }),
  /** Another object's id (`idOf`), a String on GraphQL too (named there by graphqlObject's `names`). */
  ref: <Row>(kind: string, get?: Get<Row>) => plain<Row>(idOf(kind), 'String', false, get),
};

/** The field builders of `defineObject`: each takes the field's one description. */
export const field = {
  text: <Row>(description: string, get?: Get<Row>) =>
    plain<Row>(z.string().meta({ description }), 'String', false, get),
  nullableText: <Row>(description: string, get?: Get<Row>) =>
    plain<Row>(z.string().nullable().meta({ description }), 'String', true, get),
  url: <Row>(description: string, get: Get<Row>) =>
    plain<Row>(z.string().meta({ format: 'uri', description }), 'String', false, get),
  enum: <Row, const V extends readonly string[]>(values: V, description?: string, get?: Get<Row>) =>
    plain<Row>(
      description ? z.enum(values as V & [string]).meta({ description }) : z.enum(values as V & [string]),
      'enum',
      false,
      get,
    ),
  idOf: <Row>(kind: string) => plain<Row>(idOf(kind), false, false),
  /** The row's `currency`, REST only (GraphQL answers it inside Money). */
  currency: <Row>(): Field<Row> => plain<Row>(wireCurrency, false, false),
  /** An amount in minor units with the row's currency (or `get`'s): a wire decimal on REST, Money on GraphQL. */
  money:
    <Row>(
      description = "How much it moves, in its currency: major units with exactly the currency's minor-unit digits (100.50 USD, 1500 JPY).",
      get?: (row: Row) => Money,
    ): Field<Row> =>
    (name) => {
      const money =
        get ??
        ((row: Row) => ({
          amount: prop(name)(row) as bigint,
          currency: (row as { currency: string }).currency as CurrencyCode,
        }));
      return {
        wire: wireDecimal.meta({ description }),
        graphql: 'Money',
        nullable: false,
        rest: (row) => WireDecimal.of(money(row).amount, money(row).currency),
        value: money,
      };
    },
  timestamp:
    <Row>(description?: string, get?: Get<Row>): Field<Row> =>
    (name) => {
      const value = get ?? (prop(name) as Get<Row>);
      return {
        wire: description ? timestamp.meta({ description }) : timestamp,
        graphql: 'DateTime',
        nullable: false,
        rest: (row, rc) => (value(row, rc) as Date).toISOString(),
        value,
      };
    },
  createdAt: <Row>() => field.timestamp<Row>('When it was created, clock time.'),
  updatedAt: <Row>() => field.timestamp<Row>('When it last changed, clock time.'),
  metadata: <Row>() => plain<Row>(wireMetadata, 'JSONObject', false),
  /** Any other wire schema, REST only, with its value from the row (GraphQL writes its own, if any). */
  custom: <Row>(wire: z.ZodType, get: Get<Row>) => plain<Row>(wire, false, false, get),
  ...scalarFields,
};

/** A field as `make` builds it, with a REST schema of its own (a named component, its own bounds). */
export const withWire =
  <Row>(make: Field<Row>, wire: z.ZodType): Field<Row> =>
  (name) => ({ ...make(name), wire });

export interface ObjectDecl<Row, O extends string = string, S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  object: O;
  description: string;
  fields: Record<string, FieldDecl<Row>>;
  /** The REST resource's schema: the OpenAPI component `name`, and the webhook payload's. */
  wire: z.ZodObject<S>;
  /** The row as REST answers it (and as an event carries it). */
  render(row: Row, rc: RenderContext): z.input<z.ZodObject<S>>;
}

type Shape<F extends Record<string, Field<never>>> = {
  [K in keyof F]: z.ZodType;
} & {
  id: z.ZodString;
  object: z.ZodLiteral<string>;
};

/** An object kind: its id, its `object` name, and its fields in the order REST answers them. */
export function defineObject<Row extends { id: string }>() {
  return <const O extends string, F extends Record<string, Field<Row>>>(
    name: string,
    object: O,
    description: string,
    builders: F,
  ): ObjectDecl<Row, O, Shape<F>> => {
    const fields = Object.fromEntries(Object.entries(builders).map(([key, make]) => [key, make(key)]));
    const wire = wireResource(
      name,
      object,
      description,
      Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.wire])),
    );
    return {
      name,
      object,
      description,
      fields,
      wire: wire as unknown as z.ZodObject<Shape<F>>,
      render: (row, rc) =>
        ({
          id: row.id,
          object,
          ...Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.rest(row, rc)])),
        }) as never,
    };
  };
}
