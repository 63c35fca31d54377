import { z } from 'zod';

/** A page's size when the request names none. */
export const DEFAULT_PAGE_LIMIT = 20;
/** The most a page holds. */
export const MAX_PAGE_LIMIT = 100;

/** List parameters: limit 1-100 (default 20), starting_after=<id>, newest first. */
export const listQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  starting_after: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,255}$/, 'a cursor is an object id')
    .optional(),
});

export type ListQuery = z.output<typeof listQuerySchema>;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Builds a page from rows fetched with limit + 1: the extra row only says whether more exist. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data, hasMore, nextCursor: hasMore ? (data.at(-1)?.id ?? null) : null };
}
