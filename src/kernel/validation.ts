import type { z } from 'zod';
import { type ErrorCode, SandbankError } from './errors.ts';
import { unstorableTextError, unstorableTextPath } from './text.ts';

/** Error code per top-level field, for fields whose failures have their own code (amount_invalid…). */
export type FieldCodes = Partial<Record<string, ErrorCode>>;

type Issue = z.core.$ZodIssue;

function paramOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * A union's failure as the one option the value was meant for: an option that failed only on the
 * value's type (a string option given an object) was not meant; when exactly one option failed
 * deeper, its issues (under the union's path) stand for the union's.
 */
function unionIssues(issues: readonly Issue[]): readonly Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || !('errors' in issue)) return [issue];
    const meant = issue.errors.filter(
      (option) => !option.every((inner) => inner.code === 'invalid_type' && inner.path.length === 0),
    );
    const [only] = meant;
    if (meant.length !== 1 || !only) return [issue];
    return unionIssues(only.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue));
  });
}

/** Turns a zod issue (an unknown field first, else the first) into the registry's error: unknown field, missing field, or the field's own code. */
export function issueToError(
  issues: readonly Issue[],
  fieldCodes: FieldCodes = {},
  input?: unknown,
): SandbankError {
  issues = unionIssues(issues);
  // An unknown field wins over the others: a typo ("ammount") is reported as the typo, not as the
  // required field it left missing (typos must not pass silently).
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0];
  if (!issue) return new SandbankError('parameter_invalid');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const param = paramOf([...issue.path, key]);
    return new SandbankError('parameter_unknown', { param, message: `Unknown parameter: ${param}.` });
  }
  const param = paramOf(issue.path);
  const missing = issue.path.length > 0 && valueAt(input, issue.path) === undefined;
  if (missing)
    return new SandbankError('parameter_missing', {
      param,
      message: `Missing required parameter: ${param}.`,
    });
  const top = String(issue.path[0] ?? '');
  const code = fieldCodes[top] ?? 'parameter_invalid';
  return new SandbankError(code, { param, message: `Invalid ${param || 'request'}: ${issue.message}` });
}

/** Parses `input` with `schema`, throwing the registry's error for the first problem. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  fieldCodes: FieldCodes = {},
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw issueToError(result.error.issues, fieldCodes, input);
  const unstorable = unstorableTextPath(result.data);
  if (unstorable) throw unstorableTextError(unstorable, fieldCodes[String(unstorable[0] ?? '')]);
  return result.data;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
