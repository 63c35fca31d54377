import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import type { DueWork } from '../scheduler/scheduler.service.ts';

/** Ten years: far enough for any test, small enough to keep dates sane. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

/**
 * The latest instant a merchant's clock may reach: dates the simulation derives from the clock
 * (expiries, deadlines, settlement days) stay well inside what timestamps can hold (year 9999).
 */
export const CLOCK_CEILING = new Date('9000-01-01T00:00:00.000Z');

/** The moments an advance may go to by name (`next`): settlement, when every ACH entry in flight has settled. */
export const ADVANCE_MARKS = ['settlement'] as const;

/** An advance by seconds, as the clock takes it (also a fixture's clock step). */
export const advanceSecondsSchema = z.number().int().positive().max(MAX_ADVANCE_SECONDS);
/** An advance to an instant, as the clock takes it (also a fixture's clock step). */
export const advanceToSchema = z.iso.datetime({ offset: true });

export const advanceClockSchema = z
  .strictObject({
    seconds: advanceSecondsSchema
      .optional()
      .describe('Move forward by this many seconds (at most ten years).'),
    to: advanceToSchema
      .optional()
      .describe('Move forward to this instant (ISO 8601 with an offset; at most ten years ahead).'),
    next: z
      .enum(ADVANCE_MARKS)
      .optional()
      .describe(
        'Move forward to the next such moment. `settlement`: when every ACH entry now in flight has settled ' +
          '(standard and Same-Day, credits and debits, transfers and payouts), running each submission and ' +
          "settlement on the way; one already due settles now. With no ACH entry in flight, the next Same-Day ACH window's " +
          'settlement (when an entry made now would settle soonest), as the dashboard\'s "Next settlement" does.',
      ),
  })
  .refine(
    (input) => [input.seconds, input.to, input.next].filter((field) => field !== undefined).length === 1,
    'send exactly one of seconds, to or next',
  )
  // The refinement above, as the document says it: exactly one of the three fields.
  .meta({
    description: 'Send exactly one of seconds, to or next.',
    oneOf: [{ required: ['seconds'] }, { required: ['to'] }, { required: ['next'] }],
  } as z.GlobalMeta);

/** The error codes of an advance's fields. */
export const advanceClockFieldCodes: FieldCodes = {
  seconds: 'parameter_invalid',
  to: 'parameter_invalid',
  next: 'parameter_invalid',
};

/** POST /v1/clock/advance's body as parsed: advanceClock's input. */
export type AdvanceClockInput = z.output<typeof advanceClockSchema>;

export const DueWorkStateValues = describedValues('DueWorkState', 'Where a piece of due work stands.', {
  pending: 'Not run yet: it runs when the clock reaches dueAt.',
  done: 'Ran.',
  failed: 'Ran and failed (error says why); it is not run again.',
} satisfies Record<DueWork['state'], string>);

export const ClockMarkValues = describedValues(
  'ClockMark',
  'A moment advanceClock can go to by name (its `next` argument).',
  {
    settlement:
      'When every ACH entry now in flight has settled (standard and Same-Day, credits and debits, transfers and ' +
      "payouts); with none in flight, the next Same-Day ACH window's settlement.",
  } satisfies Record<(typeof ADVANCE_MARKS)[number], string>,
);
