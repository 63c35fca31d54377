/**
 * The webhook receivers started and not yet stopped in the running test file (receiver.ts adds and
 * removes them; per-test-checks.ts checks them after each test). Apart from receiver.ts so that the
 * setup file imports nothing heavy.
 */
export const startedReceivers = new Set<{ assertConforming(): void }>();
