import { z } from 'zod';
import { idOf, timestamp, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import type { RanJob } from '../scheduler/scheduler.service.ts';
import type { ClockView } from './clock.service.ts';

export const ClockJobWire = z
  .object({
    id: z.string().meta({ description: 'The id of the piece of work.' }),
    kind: z.string().meta({
      description:
        'What the work did, as module.step: collection.expire, card_payment.expire_authorization, refund.settle, token.expire, ledger.funds_available, transfer.submit, transfer.settle, transfer.return, transfer.rtp_answer, issuing.expire_authorization, fx.expire_quote, fx.pay_settlement.',
    }),
    object_id: idOf('object the work was about'),
    due_at: timestamp.meta({ description: 'The clock instant it fell due at (and ran as of).' }),
    state: z
      .enum(['done', 'failed'])
      .meta({ description: 'done, or failed (its error says why; the rest of the work still ran).' }),
    error: z.string().nullable().meta({ description: 'Why it failed; null when done.' }),
  })
  .meta({
    id: 'ClockJob',
    description: 'A piece of due work a clock change ran (an expiry, a settlement, …).',
  });

export const ClockWire = wireAnswer('clock', {
  now: timestamp.meta({ description: "The merchant's clock time now." }),
  frozen: z.boolean().meta({ description: 'Whether the clock is stopped (it stays at now).' }),
  offset_ms: z
    .number()
    .int()
    .meta({ description: 'Milliseconds ahead of real time (the offset a running clock keeps).' }),
  ran: z.array(ClockJobWire).meta({
    description:
      'The due work this change ran, in due-time order (an advance runs everything due on the way); empty on a read.',
  }),
}).meta({
  id: 'Clock',
  description:
    "The merchant's simulated clock: real time plus an offset, or frozen. Every banking time of the merchant (windows, settlements, expiries) follows it.",
});

function jobResource(job: RanJob): Wire<typeof ClockJobWire> {
  return {
    id: job.id,
    kind: job.kind,
    object_id: job.objectId,
    due_at: job.dueAt.toISOString(),
    state: job.state,
    error: job.error,
  };
}

/** The API representation of a merchant's clock, with the work a change ran. */
export function clockResource(clock: ClockView): Wire<typeof ClockWire> {
  return {
    object: 'clock',
    now: clock.now.toISOString(),
    frozen: clock.frozen,
    offset_ms: clock.offsetMs,
    ran: clock.ran.map(jobResource),
  };
}
