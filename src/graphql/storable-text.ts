import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { assertStorableText } from '../kernel/text.ts';

/** Checks a field's arguments; an `input` object's fields are named as REST names them (no prefix). */
function checkArgs(args: object): void {
  for (const [name, value] of Object.entries(args)) assertStorableText(value, name === 'input' ? [] : [name]);
}

/**
 * GraphQL's side of the boundary check for text no column can store (kernel/text.ts): the
 * arguments of every field, variables and literals alike, are checked before its resolver runs.
 * Listed last among the builder's plugins, it runs inside the others: after the key check, and its
 * error becomes a mutation's typed SandbankError result like any other validation failure.
 */
export class StorableTextPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (Object.keys(fieldConfig.args).length === 0) return resolver;
    return (parent, args, context, info) => {
      checkArgs(args);
      return resolver(parent, args, context, info);
    };
  }

  override wrapSubscribe(
    subscribe: GraphQLFieldResolver<unknown, Types['Context'], object> | undefined,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> | undefined {
    if (!subscribe || Object.keys(fieldConfig.args).length === 0) return subscribe;
    return (parent, args, context, info) => {
      checkArgs(args);
      return subscribe(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      storableText: StorableTextPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('storableText', StorableTextPlugin);
export const storableTextPlugin = 'storableText' as const;
