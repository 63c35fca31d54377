import { bigint, text, timestamp } from 'drizzle-orm/pg-core';

/** Shared column builders: timestamps with milliseconds in UTC, money as bigint minor units. */
export const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
export const money = (name: string) => bigint(name, { mode: 'bigint' });
export const currency = (name = 'currency') => text(name).notNull();
export const createdAt = () => at('created_at').notNull();
export const updatedAt = () => at('updated_at').notNull();
