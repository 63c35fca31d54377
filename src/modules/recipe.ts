/**
 * What a trigger recipe is (docs/guide/trigger.md): the interface each module's recipes implement
 * (`<module>.recipes.ts`, beside the objects they drive), the driver a run hands them, and the
 * helpers they share. Each module lists its recipes in its manifest (`recipes`) and the trigger
 * module runs them (trigger/trigger.recipes.ts maps them by type); this file imports no module,
 * so a module's recipes depend on nothing of the trigger module.
 */
import { SandbankError } from '../kernel/errors.ts';
import { parseAmount } from '../kernel/money.ts';
import { parseInput } from '../kernel/validation.ts';
import type { ServiceContext } from './context.ts';

/**
 * What a recipe's run is given: the merchant's service context with its clock read afresh (a step
 * may have advanced it), and the clock's advance. Each step calls the service behind the
 * operation a user would call through the API.
 */
export interface RecipeDriver {
  now(): Date;
  /** The service context of the next step (the clock read afresh). */
  context(): ServiceContext;
  /** POST /v1/clock/advance {seconds}: runs every piece of the merchant's work that falls due. */
  advance(seconds: number): Promise<void>;
}

/**
 * One recipe per event type: which override keys it accepts, and how it drives real objects
 * through their own operations until the event is emitted. `prepare` checks the overrides with
 * the real operations' schemas before anything is written, and answers the run.
 */
export interface Recipe {
  type: string;
  /** What the recipe drives, in words (docs/guide/trigger.md and GET /v1/simulate/events/recipes). */
  drives: string;
  /** The override keys it accepts; `metadata.*` stands for any `metadata.<key>`. */
  accepts: readonly string[];
  /** Whether it moves the merchant's clock. */
  movesClock: boolean;
  /**
   * The run answers the id of its primary object, the one the event is about (for webhook.test, the
   * id of the event it sent): the triggered event is chosen by it, never by time alone.
   */
  prepare(set: Overrides): (d: RecipeDriver) => Promise<string>;
}

export type Overrides = Readonly<Record<string, string>>;

export function recipe(
  type: string,
  drives: string,
  accepts: readonly string[],
  prepare: Recipe['prepare'],
  movesClock = false,
): Recipe {
  return { type, drives, accepts, movesClock, prepare };
}

/** Where the recipes send bank entries: a routing number every rail reaches, an account that succeeds. */
export const ROUTING = '110000000';
export const GOOD_ACCOUNT = '000123456789';
export const VISA = '4242424242424242';
export const DAY = 86_400;

export const LABELS = ['reference', 'description', 'metadata.*'] as const;

/** The overrides named `metadata.<key>` as a metadata object (absent when none). */
export function metadataOf(set: Overrides): Record<string, string> | undefined {
  const entries = Object.entries(set).filter(([key]) => key.startsWith('metadata.'));
  return entries.length
    ? Object.fromEntries(entries.map(([key, value]) => [key.slice(9), value]))
    : undefined;
}

/** reference, description and metadata from the overrides, only those set. */
export function labels(set: Overrides): Record<string, unknown> {
  return {
    ...(set.reference !== undefined ? { reference: set.reference } : {}),
    ...(set.description !== undefined ? { description: set.description } : {}),
    ...(metadataOf(set) ? { metadata: metadataOf(set) } : {}),
  };
}

/** An error of an underlying operation, its param named as the override that caused it. */
export function asOverride<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof SandbankError && error.param && !error.param.startsWith('set.')) {
      throw new SandbankError(error.code, { param: `set.${error.param}`, message: error.message });
    }
    throw error;
  }
}

/**
 * Parses `input` with an operation's own schema and checks its amount as the operation does (a bad
 * override is its 400, named set.<key>); `also` checks the parsed amount further as the operation
 * would (a bank entry's rail limit, transfers.recipes.ts), its errors named alike.
 */
export function checked<T>(
  schema: Parameters<typeof parseInput>[0],
  input: unknown,
  codes = {},
  also?: (parsed: T, minor: bigint) => void,
): T {
  return asOverride(() => {
    const parsed = parseInput(schema, input, codes) as T & { amount?: unknown; currency?: string };
    if (parsed.amount === undefined) return parsed as T;
    const minor = parseAmount(parsed.amount, (parsed.currency ?? 'USD') as 'USD');
    also?.(parsed, minor);
    return parsed as T;
  });
}
