import type { buildYoga } from './yoga.ts';

export type Yoga = ReturnType<typeof buildYoga>;
/** Yoga, built on first use. */
export type LazyYoga = () => Promise<Yoga>;

/**
 * GraphQL (the schema, Yoga, their dependencies) loaded and built on its first request instead of
 * at every start: a test run that only calls REST never pays for it.
 */
export function lazyYoga(publicUrl: string): LazyYoga {
  let loading: Promise<Yoga> | undefined;
  return () => {
    loading ??= import('./yoga.ts').then((module) => module.buildYoga({ publicUrl }));
    return loading;
  };
}

/** The schema as SDL (GET /graphql/schema.graphql), printed on first use. */
export async function printedSchemaOnce(): Promise<string> {
  const { printedSchema } = await import('./schema.ts');
  sdl ??= printedSchema();
  return sdl;
}
let sdl: string | undefined;
