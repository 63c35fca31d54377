import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';

/** Ten years: far enough for any test, small enough to keep dates sane. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

export const advanceClockSchema = z
  .strictObject({
    seconds: z
      .number()
      .int()
      .positive()
      .max(MAX_ADVANCE_SECONDS)
      .optional()
      .describe('Move forward by this many seconds (at most ten years).'),
    to: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Move forward to this instant (ISO 8601 with an offset; at most ten years ahead).'),
  })
  .refine(
    (input) => (input.seconds === undefined) !== (input.to === undefined),
    'send exactly one of seconds or to',
  )
  // The refinement above, as the document says it: exactly one of the two fields.
  .meta({
    description: 'Send exactly one of seconds or to.',
    oneOf: [{ required: ['seconds'] }, { required: ['to'] }],
  } as z.GlobalMeta);

/** The error codes of an advance's fields. */
export const advanceClockFieldCodes: FieldCodes = { seconds: 'parameter_invalid', to: 'parameter_invalid' };

/** POST /v1/clock/advance's body as parsed: advanceClock's input. */
export type AdvanceClockInput = z.output<typeof advanceClockSchema>;
