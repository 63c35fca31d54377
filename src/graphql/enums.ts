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

/**
 * An enum whose every value is described. `values` maps each value to its description; typed
 * against the module's own list (`Record<State, string>`), a value added there and not here, or
 * described here and gone there, fails the type check. The values are the REST wire values, so a
 * JSON variable that sent the string before the enum existed still parses.
 */
export function describedEnum<const V extends string>(
  name: string,
  description: string,
  values: Record<V, string>,
) {
  const ref = builder.enumType(name, {
    description,
    values: Object.fromEntries(
      Object.entries<string>(values).map(([value, text]) => [value, { value, description: text }]),
    ) as Record<V, { value: V; description: string }>,
  });
  const key = Object.keys(values).sort().join('|');
  byValues.set(key, [...(byValues.get(key) ?? []), { name, ref }]);
  return ref;
}

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
