import { and, desc, eq, gt, gte, isNull, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import { dbOf, type ServiceContext } from '../context.ts';
import type { CustomerRow } from './stripe.customers.rows.ts';
import { StripeError } from './stripe.errors.ts';
import { stripeCustomers } from './stripe.objects.table.ts';

/**
 * GET /v1/customers/search: Stripe's search query language over the merchant's customers, the part
 * of it the dialect reads: `email`, `name` and `phone` (`:` an exact match, `~` a substring, both
 * ignoring case), `metadata['key']:'value'` and `created` (`:`, `>`, `<`, `>=`, `<=` a Unix time),
 * joined by AND or by OR. Anything else is refused, named. Unlike Stripe's, its results are at once
 * up to date (no indexing delay).
 */

type Field = 'email' | 'name' | 'phone' | 'metadata' | 'created';
type Operator = ':' | '~' | '>' | '<' | '>=' | '<=';
interface Clause {
  field: Field;
  key?: string;
  op: Operator;
  value: string;
}

const TEXT_FIELDS = ['email', 'name', 'phone'] as const;
const MAX_CLAUSES = 10;

function refuse(message: string): StripeError {
  return new StripeError(400, {
    type: 'invalid_request_error',
    code: 'parameter_invalid_string',
    param: 'query',
    message: `${message} Sandbank's Stripe dialect searches customers by email, name, phone ('field:value' or 'field~value'), metadata['key']:'value' and created, joined by AND or OR.`,
  });
}

/** Reads a query into its clauses and the one word joining them. */
export function parseQuery(query: string): { clauses: Clause[]; join: 'AND' | 'OR' } {
  let at = 0;
  const rest = () => query.slice(at);
  const skipSpaces = () => {
    while (query[at] === ' ') at += 1;
  };
  const quoted = (): string | null => {
    const quote = query[at];
    if (quote !== "'" && quote !== '"') return null;
    let out = '';
    for (at += 1; at < query.length; at += 1) {
      const char = query[at];
      if (char === '\\' && at + 1 < query.length) out += query[++at];
      else if (char === quote) {
        at += 1;
        return out;
      } else out += char;
    }
    throw refuse(`The query has an unterminated string (${quote}${out}).`);
  };
  const clauses: Clause[] = [];
  const joins = new Set<'AND' | 'OR'>();
  for (;;) {
    skipSpaces();
    const name = /^-?[A-Za-z_.]+/.exec(rest())?.[0];
    if (!name) throw refuse(`The query could not be read at '${rest().slice(0, 30) || query}'.`);
    at += name.length;
    let key: string | undefined;
    if (name === 'metadata') {
      if (query[at] !== '[') throw refuse("metadata is searched as metadata['key']:'value'.");
      at += 1;
      key = quoted() ?? undefined;
      if (key === undefined || query[at] !== ']')
        throw refuse("metadata is searched as metadata['key']:'value'.");
      at += 1;
    } else if (!(TEXT_FIELDS as readonly string[]).includes(name) && name !== 'created')
      throw refuse(`Searching customers by '${name}' is not supported.`);
    const op = /^(>=|<=|:|~|>|<)/.exec(rest())?.[0] as Operator | undefined;
    if (!op) throw refuse(`After '${name}' the query needs an operator (: or ~).`);
    at += op.length;
    const field = name as Field;
    const textual = field !== 'created';
    if ((textual && op !== ':' && (op !== '~' || field === 'metadata')) || (!textual && op === '~'))
      throw refuse(`The operator ${op} is not supported for ${field}.`);
    let value: string | undefined;
    if (textual) {
      value = quoted() ?? undefined;
      if (value === undefined) throw refuse(`The value for ${name} must be a quoted string ('…').`);
    } else {
      value = /^-?\d+/.exec(rest())?.[0];
      if (value === undefined) throw refuse('created is compared with a Unix time (created>1700000000).');
      at += value.length;
    }
    if (op === '~' && value.length < 3) throw refuse('A substring search (~) needs at least 3 characters.');
    clauses.push({ field, op, value, ...(key !== undefined ? { key } : {}) });
    if (clauses.length > MAX_CLAUSES) throw refuse(`A query has at most ${MAX_CLAUSES} clauses.`);
    skipSpaces();
    if (at >= query.length) break;
    const join = /^(AND|OR)\s/.exec(rest())?.[1] as 'AND' | 'OR' | undefined;
    if (!join) throw refuse(`Clauses are joined by AND or OR, not '${rest().slice(0, 20)}'.`);
    joins.add(join);
    at += join.length;
  }
  if (joins.size > 1) throw refuse('A query joins its clauses all by AND or all by OR, not both.');
  return { clauses, join: joins.has('OR') ? 'OR' : 'AND' };
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

function condition(clause: Clause): SQL | undefined {
  const t = stripeCustomers;
  if (clause.field === 'metadata') return sql`${t.metadata} ->> ${clause.key ?? ''} = ${clause.value}`;
  if (clause.field === 'created') {
    // A Unix time from 1970 to 9999 (what a timestamp column holds and Stripe accepts).
    const seconds = Number(clause.value);
    if (!(seconds >= 0 && seconds <= 253_402_300_799))
      throw refuse('created is a Unix time from 0 to 253402300799.');
    const at = new Date(seconds * 1000);
    const compare = { ':': eq, '>': gt, '<': lt, '>=': gte, '<=': lte, '~': eq }[clause.op];
    return compare(t.createdAt, at);
  }
  const column = t[clause.field];
  return clause.op === '~'
    ? sql`lower(${column}) like lower(${likePattern(clause.value)})`
    : sql`lower(${column}) = lower(${clause.value})`;
}

/** A page of the customers a query finds, newest first; `page` is the last id of the page before. */
export async function searchCustomers(
  ctx: ServiceContext,
  query: { query: string; limit: number; page?: string | undefined },
): Promise<{ data: CustomerRow[]; nextPage: string | null }> {
  const { clauses, join } = parseQuery(query.query);
  const conditions = clauses.map(condition);
  const t = stripeCustomers;
  const rows = await dbOf(ctx)
    .select()
    .from(t)
    .where(
      and(
        eq(t.merchantId, ctx.merchant.id),
        isNull(t.deletedAt),
        join === 'OR' ? or(...conditions) : and(...conditions),
        query.page ? lt(t.id, query.page) : undefined,
      ),
    )
    .orderBy(desc(t.id))
    .limit(query.limit + 1);
  const data = rows.slice(0, query.limit);
  const last = data.at(-1);
  return { data, nextPage: rows.length > query.limit && last ? last.id : null };
}
