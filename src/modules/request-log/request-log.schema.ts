import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { REQUEST_SOURCES, type RequestSource } from './request-log.entry.ts';

/** The filters of GET /v1/requests, each checked as REST receives it (text), and again for GraphQL. */

const STATUS = /^([1-5][0-9]{2}|[1-5]xx)(,([1-5][0-9]{2}|[1-5]xx)){0,19}$/i;
const SOURCE_LIST = new RegExp(`^(${REQUEST_SOURCES.join('|')})(,(${REQUEST_SOURCES.join('|')})){0,3}$`);
const METHOD = /^(get|post|put|patch|delete|head|options)$/i;
const instant = z.iso.datetime({ offset: true });

export const requestLogFilters = {
  status: z
    .string()
    .regex(STATUS, 'a status (402), a class (4xx) or a comma-separated list of them (400,5xx)')
    .optional()
    .describe(
      'Only requests answered with this status (402), a status of this class (4xx, 5xx), or any of a comma-separated list (400,402,5xx).',
    ),
  method: z
    .string()
    .regex(METHOD, 'an HTTP method (GET, POST, DELETE…)')
    .optional()
    .describe('Only requests of this HTTP method (GET, POST, DELETE; any case).'),
  path: z
    .string()
    .min(1)
    .max(2048)
    .regex(/^\/[^*]*\*?$/, 'a path (/v1/collect), or a prefix ending in * (/v1/card_payments*)')
    .optional()
    .describe(
      'Only requests to this path (/v1/collect), or to paths starting with a prefix written with a trailing * (/v1/card_payments*).',
    ),
  operation: z
    .string()
    .max(255)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an operation name (createCardPayment)')
    .optional()
    .describe(
      "Only requests of this operation: REST's operationId (createCardPayment) or the GraphQL operation's name (its first root field when unnamed).",
    ),
  source: z
    .string()
    .regex(SOURCE_LIST, `one or more of ${REQUEST_SOURCES.join(', ')}, comma-separated`)
    .optional()
    .describe(
      `Only requests from these sources, comma-separated: ${REQUEST_SOURCES.join(', ')} (api,cli leaves out the dashboard and sandbank/testing's helpers).`,
    ),
  idempotency_key: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('Only requests that carried this Idempotency-Key (the first and its replays).'),
  created_from: instant.optional().describe('Made at or after this instant (real time, ISO 8601).'),
  created_to: instant.optional().describe('Made before this instant (real time, ISO 8601).'),
  ending_before: listQuerySchema.shape.starting_after.describe(
    "Only requests newer than this one (its id, req_…): the page of the oldest of them, still listed newest first; has_more says whether newer ones follow (ask again with the page's first id). A tail's way to read what came since. Not with starting_after.",
  ),
};

export const listRequestLogsQuery = listQuerySchema.extend(requestLogFilters);
export type ListRequestLogsQuery = z.output<typeof listRequestLogsQuery>;

/** The query as a GraphQL connection hands it: the same fields, its instants as Dates. */
export type RequestLogsInput = Omit<ListRequestLogsQuery, 'created_from' | 'created_to'> & {
  created_from?: string | Date | undefined;
  created_to?: string | Date | undefined;
};

export const RequestLogSourceValues = describedValues('RequestLogSource', 'Who sent a request.', {
  api: 'A client with an API key.',
  dashboard: "The dashboard's GraphiQL, signed in with the dashboard session.",
  cli: 'The sandbank CLI (User-Agent sandbank-cli/…).',
  testing: "sandbank/testing's helpers (User-Agent sandbank-testing/…).",
} satisfies Record<RequestSource, string>);

/** A status filter as SQL-ready parts: exact statuses, and classes (4 for 4xx). */
export function statusFilter(text: string): { statuses: number[]; classes: number[] } {
  const statuses: number[] = [];
  const classes: number[] = [];
  for (const part of text.split(',')) {
    if (/x/i.test(part)) classes.push(Number(part[0]));
    else statuses.push(Number(part));
  }
  return { statuses, classes };
}
