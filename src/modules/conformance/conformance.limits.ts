/** A run's timeout per delivery (and per wait for the handler's work), ms: by default, and its bounds. */
export const DEFAULT_TIMEOUT_MS = 5_000;
export const MIN_TIMEOUT_MS = 1_000;
export const MAX_TIMEOUT_MS = 15_000;
/** Runs going at once per merchant (one per endpoint besides). */
export const MAX_RUNNING_PER_MERCHANT = 4;

/**
 * The longest a run takes: its longest scenario waits four times the timeout at most (a delivery,
 * the handler's work, the retry, its work), plus the grace waits and making the collections.
 */
export const runBoundMs = (timeoutMs: number) => 4 * timeoutMs + 10_000;

/** Runs a merchant keeps: starting one deletes the ended ones older than its latest 50. */
export const KEPT_PER_MERCHANT = 50;
