/** Every table, gathered for Drizzle and drizzle-kit. Tables live beside their module's service. */
export * from '../modules/collections/collections.table.ts';
export * from '../modules/events/events.table.ts';
export * from '../modules/idempotency/idempotency.table.ts';
export * from '../modules/merchants/merchants.table.ts';
