import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { RanJob } from '../scheduler/scheduler.service.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from './clock.change.ts';
import { advanceClockFieldCodes, advanceClockSchema } from './clock.schema.ts';
import { type ClockView, getClock } from './clock.service.ts';

const RanJobRef = builder.objectRef<RanJob>('DueWork').implement({
  description: 'A piece of due work the clock ran (an expiry, a release of funds, …).',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind'),
    objectId: t.exposeString('objectId'),
    dueAt: t.field({ type: 'DateTime', resolve: (job) => job.dueAt }),
    state: t.exposeString('state'),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const ClockRef = builder.objectRef<ClockView>('Clock').implement({
  description: "The merchant's simulated clock: real time plus an offset, or frozen.",
  fields: (t) => ({
    now: t.field({ type: 'DateTime', resolve: (clock) => clock.now }),
    frozen: t.exposeBoolean('frozen'),
    offsetMs: t.float({
      description: 'Milliseconds ahead of real time (while running).',
      resolve: (clock) => clock.offsetMs,
    }),
    ran: t.field({
      type: [RanJobRef],
      description: 'Work run by this change, in order.',
      resolve: (clock) => clock.ran,
    }),
  }),
});

builder.queryFields((t) => ({
  clock: t.field({ type: ClockRef, resolve: (_root, _args, ctx) => getClock(serviceContext(ctx)) }),
}));

const advanceBody = wireInput('advanceClock', advanceClockSchema, advanceClockFieldCodes);

builder.mutationFields((t) => ({
  advanceClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    description: 'Move the clock forward by `seconds` or `to` an instant, running all due work on the way.',
    args: { seconds: t.arg.int(), to: t.arg({ type: 'DateTime' }) },
    resolve: (_root, args, ctx) =>
      advanceClock(
        serviceContext(ctx),
        // `to` is a DateTime here, an ISO 8601 string on the wire.
        advanceBody.parse(advanceBody.body({ seconds: args.seconds, to: args.to?.toISOString() })),
      ),
  }),
  freezeClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    resolve: (_r, _a, ctx) => freezeClock(serviceContext(ctx)),
  }),
  unfreezeClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    resolve: (_r, _a, ctx) => unfreezeClock(serviceContext(ctx)),
  }),
  resetClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    resolve: (_r, _a, ctx) => resetClock(serviceContext(ctx)),
  }),
}));
