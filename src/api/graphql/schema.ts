import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import { MODULES, registerModules } from '../../modules/index.ts';
import '../../graphql/scalars.ts';
import '../../graphql/errors.ts';
import '../../graphql/node.ts';
import { enumsOfDeclaredSets } from '../../graphql/enums.ts';

// Every module's GraphQL file(s), loaded by its manifest, in the modules' order: each registers its
// types on the one builder. This file is itself loaded on GraphQL's first use (lazy.ts), so start-up
// and REST never load any of it. The registries some types are derived from (event types, reset
// kinds) are filled first: the schema may be built without an app (npm run schema:print).
registerModules();
for (const module of MODULES) await module.graphql?.();
enumsOfDeclaredSets();

/** The whole schema: every module's *.graphql.ts registers its types on the one builder. */
export const schema = builder.toSchema({ sortSchema: true });

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
