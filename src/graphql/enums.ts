import { type DescribedValues, declaredValueSets, describedValues } from '../kernel/described-values.ts';
import { builder } from './builder.ts';

/** The enum types by their set of values (a declared field's values name its enum). */
const byValues = new Map<string, { name: string; ref: unknown }[]>();

/**
 * The one enum type with exactly these values, by name (a field of a declaration whose values are
 * an enum's); more than one, or none, is an error at schema build: name it in the object's `enums`.
 */
export function enumOfValues(values: readonly string[], field: string): unknown {
  const found = byValues.get([...values].sort().join('|')) ?? [];
  if (found.length !== 1)
    throw new Error(
      `The field ${field} matches ${found.length} enum types (${found.map((e) => e.name).join(', ')}): name one.`,
    );
  return found[0]?.ref;
}

const made = new Map<DescribedValues, unknown>();

/**
 * The enum type of a described set of values (src/kernel/described-values.ts), made once. The
 * values are the REST wire values, so a JSON variable that sent the string before the enum existed
 * still parses.
 */
export function enumOf<V extends string>(set: DescribedValues<V>) {
  const found = made.get(set as DescribedValues);
  if (found) return found as ReturnType<typeof makeEnum<V>>;
  const ref = makeEnum(set);
  made.set(set as DescribedValues, ref);
  const key = Object.keys(set.values).sort().join('|');
  byValues.set(key, [...(byValues.get(key) ?? []), { name: set.name, ref }]);
  return ref;
}

function makeEnum<V extends string>({ name, description, values }: DescribedValues<V>) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(
      Object.entries<string>(values).map(([value, text]) => [value, { value, description: text }]),
    ) as Record<V, { value: V; description: string }>,
  });
}

/** The enum types of every declared set not made yet (before the schema is built). */
export function enumsOfDeclaredSets(): void {
  for (const set of declaredValueSets()) enumOf(set);
}

/** A described enum that GraphQL alone has. */
export const describedEnum = <const V extends string>(
  name: string,
  description: string,
  values: Record<V, string>,
) => enumOf(describedValues(name, description, values));

export const ThreeDSecureOutcomeEnum = describedEnum(
  'ThreeDSecureOutcome',
  "How the payer answers a 3-D Secure challenge (the challenge page's two buttons).",
  {
    succeed: 'The payer passes the challenge: the payment goes on to authorization.',
    fail: 'The payer fails the challenge: the payment is declined.',
  },
);

export type ThreeDSecureStatus = 'required' | 'succeeded' | 'failed';

export const ThreeDSecureStatusEnum = describedEnum(
  'ThreeDSecureStatus',
  'Where a 3-D Secure challenge stands, when the card asked for one.',
  {
    required: 'The challenge waits for the payer (the payment is requires_action).',
    succeeded: 'The payer passed the challenge.',
    failed: 'The payer failed the challenge.',
  } satisfies Record<ThreeDSecureStatus, string>,
);

export type BankAccountType = 'checking' | 'savings';

export const BankAccountTypeEnum = describedEnum('BankAccountType', 'The kind of US bank account.', {
  checking: 'A checking account (the default).',
  savings: 'A savings account.',
} satisfies Record<BankAccountType, string>);
