import SchemaBuilder, {
  BasePlugin,
  type PothosOutputFieldConfig,
  type PothosTypeConfig,
  type SchemaTypes,
} from '@pothos/core';

const lowerFirst = (name: string) => `${name.charAt(0).toLowerCase()}${name.slice(1)}`;

/**
 * The description of a type the relay and errors plugins generate, from its name: a mutation's
 * result union and success type (`MutationXResult`, `MutationXSuccess`), a connection and its edge
 * (`<Parent><Field>Connection`, `…ConnectionEdge`). Null for any other type.
 */
export function generatedTypeDescription(name: string): string | null {
  const result = /^Mutation(\w+)Result$/.exec(name);
  if (result)
    return `What ${lowerFirst(result[1] as string)} answers: Mutation${result[1]}Success when it succeeded, or a SandbankError (an expected failure, with the same code as REST).`;
  const success = /^Mutation(\w+)Success$/.exec(name);
  if (success) return `${lowerFirst(success[1] as string)} succeeded: data is what it returned.`;
  const edge = /^(\w+Connection)Edge$/.exec(name);
  if (edge) return `One item of a ${edge[1]} page, with its cursor.`;
  if (/^\w+Connection$/.test(name))
    return 'A page of a list, newest first: its items (edges) and whether more follow (pageInfo).';
  return null;
}

/**
 * Describes what the relay and errors plugins generate without a description of their own (see
 * generatedTypeDescription, and a success type's `data` field), so that every type and field of
 * the schema carries one (test/outside/graphql-schema-lint.test.ts). A description given explicitly wins.
 */
export class GeneratedDescriptionsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onTypeConfig(typeConfig: PothosTypeConfig): PothosTypeConfig {
    if (typeConfig.description) return typeConfig;
    const description = generatedTypeDescription(typeConfig.name);
    return description ? { ...typeConfig, description } : typeConfig;
  }

  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    if (fieldConfig.description || fieldConfig.name !== 'data') return fieldConfig;
    if (!/^Mutation\w+Success$/.test(fieldConfig.parentType)) return fieldConfig;
    return { ...fieldConfig, description: 'What the mutation returned.' };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      generatedDescriptions: GeneratedDescriptionsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('generatedDescriptions', GeneratedDescriptionsPlugin);
export const generatedDescriptionsPlugin = 'generatedDescriptions' as const;
