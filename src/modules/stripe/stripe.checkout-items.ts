import { isStorableText } from '../../kernel/text.ts';
import { invalidParam, StripeError } from './stripe.errors.ts';

/**
 * The line items of a Checkout Session, as Stripe takes them (`line_items[i][price_data][…]`,
 * `line_items[i][quantity]`) and as the session keeps them: each with its amounts in minor units
 * and the ids of the item, its one-time price and its product. Prices and Products are not objects
 * of the dialect: an item is described by `price_data` and `product_data`, never by their ids.
 */

/** A line item as asked for. */
export interface LineItemInput {
  name: string;
  description: string | null;
  unitAmount: bigint;
  quantity: bigint;
}

/** A line item as the session's row keeps it (amounts as integer strings: minor units, never floats). */
export interface StoredLineItem {
  id: string;
  price: string;
  product: string;
  name: string;
  description: string | null;
  unit_amount: string;
  quantity: string;
  amount_total: string;
}

/** At most this many items in one session (Stripe's limit in payment mode). */
const MAX_ITEMS = 100;
const MAX_QUANTITY = 999_999n;
const MAX_UNIT_AMOUNT = 99_999_999n;

type Tree = Record<string, unknown>;

const isTree = (value: unknown): value is Tree =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** One object of the body's tree, read field by field under its full name (`line_items[0][…]`). */
class Fields {
  readonly #tree: Tree;
  readonly #name: string;
  readonly #taken = new Set<string>();

  constructor(tree: Tree, name: string) {
    this.#tree = tree;
    this.#name = name;
  }

  nameOf(key: string): string {
    return `${this.#name}[${key}]`;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.#tree, key);
  }

  #take(key: string): unknown {
    this.#taken.add(key);
    return this.has(key) ? this.#tree[key] : undefined;
  }

  text(key: string, max: number): string | undefined {
    const value = this.#take(key);
    const name = this.nameOf(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string')
      throw invalidParam(name, `Invalid string: ${name} must be a string, not an object or a list.`);
    if (value.length > max)
      throw invalidParam(name, `Invalid string: ${name} must be at most ${max} characters long.`);
    if (!isStorableText(value))
      throw invalidParam(name, `Invalid string: ${name} holds a character that cannot be stored.`);
    return value;
  }

  integer(key: string, max: bigint): bigint | undefined {
    const value = this.text(key, 40);
    const name = this.nameOf(key);
    if (value === undefined) return undefined;
    if (!/^\d{1,12}$/.test(value))
      throw invalidParam(name, `Invalid integer: ${value}`, 'parameter_invalid_integer');
    const parsed = BigInt(value);
    if (parsed > max)
      throw invalidParam(
        name,
        `Invalid integer: ${name} must be at most ${max}.`,
        'parameter_invalid_integer',
      );
    return parsed;
  }

  object(key: string): Fields | undefined {
    const value = this.#take(key);
    if (value === undefined) return undefined;
    const name = this.nameOf(key);
    if (!isTree(value))
      throw invalidParam(
        name,
        `Invalid object: ${name} takes ${name}[field]=value.`,
        'parameter_invalid_empty',
      );
    return new Fields(value, name);
  }

  required<T>(key: string, value: T | undefined): T {
    if (value !== undefined) return value;
    const name = this.nameOf(key);
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'parameter_missing',
      param: name,
      message: `Missing required param: ${name}.`,
    });
  }

  /** Refuses every field not taken, naming it. */
  done(): void {
    for (const key of Object.keys(this.#tree)) {
      if (this.#taken.has(key)) continue;
      const name = this.nameOf(key);
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'parameter_unknown',
        param: name,
        message: `Received unknown parameter: ${name}. Sandbank's Stripe dialect does not support it (its guide lists what it supports).`,
      });
    }
  }
}

function unsupportedId(name: string, what: 'Prices' | 'Products', instead: string): StripeError {
  return invalidParam(
    name,
    `${what} are not supported by Sandbank's Stripe dialect: describe the line item with ${instead} instead.`,
  );
}

function lineItem(fields: Fields): LineItemInput {
  if (fields.has('price'))
    throw unsupportedId(fields.nameOf('price'), 'Prices', `${fields.nameOf('price_data')}[…]`);
  const priceData = fields.required('price_data', fields.object('price_data'));
  const quantity = fields.required('quantity', fields.integer('quantity', MAX_QUANTITY));
  fields.done();
  if (quantity < 1n)
    throw invalidParam(
      fields.nameOf('quantity'),
      'This value must be greater than or equal to 1.',
      'parameter_invalid_integer',
    );
  if (priceData.has('product'))
    throw unsupportedId(priceData.nameOf('product'), 'Products', priceData.nameOf('product_data'));
  const currency = priceData.required('currency', priceData.text('currency', 3))?.toLowerCase();
  if (currency !== 'usd')
    throw invalidParam(
      priceData.nameOf('currency'),
      `Sandbank's card payments are in USD: the currency '${currency}' is not supported by its Stripe dialect.`,
    );
  const unitAmount = priceData.required('unit_amount', priceData.integer('unit_amount', MAX_UNIT_AMOUNT));
  const product = priceData.required('product_data', priceData.object('product_data'));
  priceData.done();
  const name = product.required('name', product.text('name', 250));
  const description = product.text('description', 1000);
  product.done();
  if (name.trim() === '')
    throw invalidParam(product.nameOf('name'), 'A line item needs a name.', 'parameter_invalid_empty');
  return { name, description: description || null, unitAmount, quantity };
}

/** `line_items` as sent (an object by index, or a list): each item read and checked. */
export function parseLineItems(value: unknown): LineItemInput[] {
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : isTree(value)
      ? Object.entries(value)
      : value === undefined || value === ''
        ? []
        : null;
  if (entries === null)
    throw invalidParam(
      'line_items',
      'Invalid array: line_items is a list of items (line_items[0][price_data][…]).',
      'parameter_invalid_empty',
    );
  if (entries.length === 0)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'parameter_missing',
      param: 'line_items',
      message:
        'Missing required param: line_items. A Checkout Session in payment mode needs at least one line item.',
    });
  if (entries.length > MAX_ITEMS)
    throw invalidParam('line_items', `A Checkout Session has at most ${MAX_ITEMS} line items.`);
  return entries.map(([index, item]) => {
    const name = `line_items[${index}]`;
    if (!/^\d{1,3}$/.test(index) || !isTree(item))
      throw invalidParam(
        name,
        `Invalid object: ${name} takes ${name}[field]=value.`,
        'parameter_invalid_empty',
      );
    return lineItem(new Fields(item, name));
  });
}

/** The items as the session keeps them, their ids drawn from the session's (`cs_X` → `li_X00`, `price_X00`, `prod_X00`). */
export function storedLineItems(sessionId: string, items: readonly LineItemInput[]): StoredLineItem[] {
  const suffix = sessionId.slice(sessionId.indexOf('_') + 1);
  return items.map((item, index) => {
    const tag = `${suffix}${index.toString().padStart(2, '0')}`;
    return {
      id: `li_${tag}`,
      price: `price_${tag}`,
      product: `prod_${tag}`,
      name: item.name,
      description: item.description,
      unit_amount: item.unitAmount.toString(),
      quantity: item.quantity.toString(),
      amount_total: (item.unitAmount * item.quantity).toString(),
    };
  });
}

/** The session's total: the sum of its items (no discounts, taxes or shipping). */
export function totalOf(items: readonly StoredLineItem[]): bigint {
  return items.reduce((sum, item) => sum + BigInt(item.amount_total), 0n);
}
