import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';

/** Ten years: far enough for any test, small enough to keep dates sane. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

export const advanceClockSchema = z
  .strictObject({
    seconds: z.number().int().positive().max(MAX_ADVANCE_SECONDS).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
  })
  .refine(
    (input) => (input.seconds === undefined) !== (input.to === undefined),
    'send exactly one of seconds or to',
  );

/** The error codes of an advance's fields. */
export const advanceClockFieldCodes: FieldCodes = { seconds: 'parameter_invalid', to: 'parameter_invalid' };

/** POST /v1/clock/advance's body as parsed: advanceClock's input. */
export type AdvanceClockInput = z.output<typeof advanceClockSchema>;
