/**
 * A named set of values, each with its one description: a state, a method, a code list. Declared
 * once beside the values it describes (a machine, a schema), as plain data; GraphQL derives its enum
 * type from it (src/graphql/enums.ts), and a declared field whose values are the set's finds it.
 */
export interface DescribedValues<V extends string = string> {
  name: string;
  description: string;
  /** Each value and its description; typed against the module's own list (`Record<State, string>`). */
  values: Record<V, string>;
}

const declared: DescribedValues[] = [];

export function describedValues<const V extends string>(
  name: string,
  description: string,
  values: Record<V, string>,
): DescribedValues<V> {
  const set = { name, description, values };
  declared.push(set as DescribedValues);
  return set;
}

/** Every set declared so far. */
export const declaredValueSets = (): readonly DescribedValues[] => declared;
