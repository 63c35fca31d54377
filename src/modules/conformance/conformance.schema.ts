import { z } from 'zod';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from './conformance.limits.ts';

export const startRunSchema = z.strictObject({
  timeout_ms: z
    .int()
    .min(MIN_TIMEOUT_MS)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `How long each delivery may take to be answered, ms (${MIN_TIMEOUT_MS}-${MAX_TIMEOUT_MS}, default ${DEFAULT_TIMEOUT_MS}).`,
    ),
  seed: z
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .describe(
      'Draw the amounts and forged bytes from this seed (a run reports its seed; default a random one).',
    ),
  wait: z
    .boolean()
    .optional()
    .describe('Answer once the run has ended (default false: answer at once, state running).'),
});

/** The body of a run's start, as parsed. */
export type StartRunInput = z.output<typeof startRunSchema>;
