import type { RunningHandler } from './correct.mjs';

/** The buggy handler's options: it verifies nothing, so it takes no secret. */
export interface BuggyHandlerOptions {
  api: string;
  key: string;
  port?: number;
  host?: string;
}

export function startHandler(options: BuggyHandlerOptions): Promise<RunningHandler>;
