import { z } from 'zod';
import { idOf, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import { ClockWire, clockResource } from '../clock/clock.resource.ts';
import { derived } from '../registry.ts';
import { type ResetKind, type ResetResult, resetKinds } from './sandbox.reset.ts';

/** The counts of a reset, one per kind its modules declare (built on first use). */
const resetDeletedWire = derived(() =>
  z
    .object(
      Object.fromEntries(
        resetKinds().map(({ kind, description }) => [
          kind,
          z.number().int().nonnegative().meta({ description }),
        ]),
      ) as Record<ResetKind, z.ZodNumber>,
    )
    .meta({ id: 'ResetDeleted', description: 'How many rows of each kind the reset deleted.' }),
);

export const ResetDeletedWire = z.lazy(resetDeletedWire);

export const ResetWire = wireAnswer('reset', {
  merchant_id: idOf('merchant whose sandbox was reset'),
  clock: ClockWire,
  deleted: ResetDeletedWire,
}).meta({
  id: 'Reset',
  description:
    "A merchant's sandbox reset: every object deleted and the clock back to real time. The merchant, its API keys, its dashboard sessions and its webhook endpoints (with their secrets) are kept. No event is written.",
});

/** The API representation of a reset. */
export function resetResource(result: ResetResult): Wire<typeof ResetWire> {
  return {
    object: 'reset',
    merchant_id: result.merchantId,
    clock: clockResource(result.clock),
    deleted: result.deleted,
  };
}
