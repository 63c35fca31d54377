import { sql } from 'drizzle-orm';
import { bigint, text, timestamp } from 'drizzle-orm/pg-core';
import { newLinkSecret } from '../kernel/secrets.ts';

/** Shared column builders: timestamps with milliseconds in UTC, money as bigint minor units. */
export const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
export const money = (name: string) => bigint(name, { mode: 'bigint' });
export const currency = (name = 'currency') => text(name).notNull();
export const createdAt = () => at('created_at').notNull();
export const updatedAt = () => at('updated_at').notNull();

/**
 * A capability link's secret (kernel/secrets.ts): new rows get one from Node's CSPRNG; the column
 * default (two random UUIDs, 244 random bits from the database's strong random source) fills the
 * rows that existed before the column did, each with its own value, and any insert that leaves it out.
 */
export const linkSecret = (name: string) =>
  text(name)
    .notNull()
    .default(sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`)
    .$defaultFn(newLinkSecret);
