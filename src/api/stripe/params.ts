import { isStorableText } from '../../kernel/text.ts';
import { invalidParam, StripeError } from '../../modules/stripe/stripe.errors.ts';

/**
 * A request's parameters as Stripe reads them: the form body's (or the query string's) bracket
 * tree, every value text. Each call of a route takes the parameters it supports; `done()` then
 * refuses any it did not take, naming it — a parameter is never silently ignored.
 */
export class Params {
  readonly #tree: Record<string, unknown>;
  readonly #taken = new Set<string>();
  /** The object these are the fields of (`automatic_payment_methods`), for the names errors give. */
  readonly #prefix: string | undefined;

  constructor(tree: Record<string, unknown>, prefix?: string) {
    this.#tree = tree;
    this.#prefix = prefix;
  }

  /** The parameters as sent (what an idempotency key's request is compared by). */
  snapshot(): Record<string, unknown> {
    return this.#tree;
  }

  /** A parameter's whole name, as errors give it (`automatic_payment_methods[enabled]`). */
  #full(name: string): string {
    return this.#prefix ? `${this.#prefix}[${name}]` : name;
  }

  #take(name: string): unknown {
    this.#taken.add(name);
    return Object.hasOwn(this.#tree, name) ? this.#tree[name] : undefined;
  }

  /** A text parameter (`max` characters at most); an empty value is absent unless `empty` says null. */
  string(name: string, max = 5000): string | undefined {
    const value = this.#take(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string')
      throw invalidParam(
        this.#full(name),
        `Invalid string: ${name} must be a string, not an object or a list.`,
      );
    if (value.length > max)
      throw invalidParam(this.#full(name), `Invalid string: ${name} must be at most ${max} characters long.`);
    if (!isStorableText(value))
      throw invalidParam(
        this.#full(name),
        `Invalid string: ${name} holds a character that cannot be stored.`,
      );
    return value;
  }

  /** A text that may be emptied: "" is null. */
  nullableString(name: string, max = 5000): string | null | undefined {
    const value = this.string(name, max);
    return value === '' ? null : value;
  }

  /** A non-negative integer (Stripe's amounts, in the currency's minor unit). */
  integer(name: string, max = 99_999_999n): bigint | undefined {
    const value = this.string(name, 40);
    if (value === undefined) return undefined;
    if (!/^\d{1,12}$/.test(value))
      throw invalidParam(this.#full(name), `Invalid integer: ${value}`, 'parameter_invalid_integer');
    const parsed = BigInt(value);
    if (parsed > max)
      throw invalidParam(
        this.#full(name),
        `Invalid integer: ${name} must be at most ${max}.`,
        'parameter_invalid_integer',
      );
    return parsed;
  }

  boolean(name: string): boolean | undefined {
    const value = this.string(name, 10);
    if (value === undefined) return undefined;
    if (value !== 'true' && value !== 'false')
      throw invalidParam(this.#full(name), `Invalid boolean: ${value}`, 'parameter_invalid_boolean');
    return value === 'true';
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.string(name, 100);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value))
      throw invalidParam(
        this.#full(name),
        `Invalid ${name}: must be one of ${values.join(', ')}`,
        'parameter_invalid_string',
      );
    return value as T;
  }

  required<T>(name: string, value: T | undefined): T {
    if (value === undefined)
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'parameter_missing',
        param: this.#full(name),
        message: `Missing required param: ${name}.`,
      });
    return value;
  }

  /** `metadata[key]=value` pairs; `metadata=` (empty) is null, every key removed. */
  metadata(name = 'metadata'): Record<string, string> | null | undefined {
    const value = this.#take(name);
    if (value === undefined) return undefined;
    if (value === '') return null;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw invalidParam(
        this.#full(name),
        'Invalid object: metadata is a set of key-value pairs (metadata[key]=value).',
        'parameter_invalid_empty',
      );
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      if (
        typeof item !== 'string' ||
        key.length > 40 ||
        item.length > 500 ||
        !isStorableText(key) ||
        !isStorableText(item)
      )
        throw invalidParam(
          `${this.#full(name)}[${key.slice(0, 40)}]`,
          'Invalid metadata: keys are at most 40 characters, values strings of at most 500.',
        );
      out[key] = item;
    }
    return out;
  }

  /** A list of texts (`name[]=a&name[]=b`, or `name[0]=a`). */
  list(name: string): string[] | undefined {
    const value = this.#take(name);
    if (value === undefined) return undefined;
    const items = Array.isArray(value)
      ? value
      : value !== null && typeof value === 'object'
        ? Object.values(value)
        : value === ''
          ? []
          : [value];
    if (items.length > 100 || !items.every((item) => typeof item === 'string' && item.length <= 200))
      throw invalidParam(
        this.#full(name),
        `Invalid array: ${name} is a list of up to 100 strings.`,
        'parameter_invalid_empty',
      );
    return items as string[];
  }

  /** A nested object's parameters (`automatic_payment_methods[enabled]`), read the same way. */
  object(name: string): Params | undefined {
    const value = this.#take(name);
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw invalidParam(
        this.#full(name),
        `Invalid object: ${name} takes ${name}[field]=value.`,
        'parameter_invalid_empty',
      );
    return new Params(value as Record<string, unknown>, this.#full(name));
  }

  /** Refuses every parameter the route did not take. */
  done(): void {
    for (const key of Object.keys(this.#tree)) {
      if (this.#taken.has(key)) continue;
      const param = this.#prefix ? `${this.#prefix}[${key}]` : key;
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'parameter_unknown',
        param,
        message: `Received unknown parameter: ${param}. Sandbank's Stripe dialect does not support it (its guide lists what it supports).`,
      });
    }
  }
}
