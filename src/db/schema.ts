/** Every table, gathered for Drizzle and drizzle-kit. Tables live beside their module's service. */
export * from '../modules/card-payments/card-payments.table.ts';
export * from '../modules/chaos/chaos.table.ts';
export * from '../modules/clock/clock.table.ts';
export * from '../modules/collections/collections.table.ts';
export * from '../modules/counterparties/counterparties.table.ts';
export * from '../modules/dashboard/dashboard.table.ts';
export * from '../modules/disputes/disputes.table.ts';
export * from '../modules/events/events.table.ts';
export * from '../modules/fx/fx.table.ts';
export * from '../modules/idempotency/idempotency.table.ts';
export * from '../modules/inbound-transfers/inbound-transfers.table.ts';
export * from '../modules/issuing/issuing.table.ts';
export * from '../modules/ledger/ledger.table.ts';
export * from '../modules/merchants/merchants.table.ts';
export * from '../modules/scheduler/scheduler.table.ts';
export * from '../modules/transfers/transfers.table.ts';
export * from '../modules/webhooks/webhooks.table.ts';
