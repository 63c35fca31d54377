import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type DueWork, jobsByIds } from '../scheduler/scheduler.service.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from './clock.change.ts';
import { type ADVANCE_MARKS, advanceClockFieldCodes, advanceClockSchema } from './clock.schema.ts';
import { type ClockView, getClock } from './clock.service.ts';

const DueWorkStateEnum = describedEnum('DueWorkState', 'Where a piece of due work stands.', {
  pending: 'Not run yet: it runs when the clock reaches dueAt.',
  done: 'Ran.',
  failed: 'Ran and failed (error says why); it is not run again.',
} satisfies Record<DueWork['state'], string>);

const RanJobRef = builder.objectRef<DueWork>('DueWork').implement({
  description: 'A piece of work due at a clock time (an expiry, a release of funds, …).',
  interfaces: [NodeRef],
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'What the work does, e.g. collection.expire.' }),
    objectId: t.exposeString('objectId', { description: 'The id of the object it acts on.' }),
    dueAt: t.field({
      type: 'DateTime',
      description: 'When it is due, clock time.',
      resolve: (job) => job.dueAt,
    }),
    state: t.field({ type: DueWorkStateEnum, description: 'Where it stands.', resolve: (job) => job.state }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed (state failed).' }),
  }),
});

nodeKind('job', RanJobRef, jobsByIds);

export const ClockRef = builder.objectRef<ClockView>('Clock').implement({
  description: "The merchant's simulated clock: real time plus an offset, or frozen.",
  fields: (t) => ({
    now: t.field({
      type: 'DateTime',
      description: "The merchant's current time.",
      resolve: (clock) => clock.now,
    }),
    frozen: t.exposeBoolean('frozen', { description: 'Whether the clock stands still (freezeClock).' }),
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
  clock: t.field({
    type: ClockRef,
    description: "The merchant's simulated clock (GET /v1/clock).",
    resolve: (_root, _args, ctx) => getClock(serviceContext(ctx)),
  }),
}));

const ClockMarkEnum = describedEnum(
  'ClockMark',
  'A moment advanceClock can go to by name (its `next` argument).',
  {
    settlement:
      'When every ACH entry now in flight has settled (standard and Same-Day, credits and debits, transfers and ' +
      "payouts); with none in flight, the next Same-Day ACH window's settlement.",
  } satisfies Record<(typeof ADVANCE_MARKS)[number], string>,
);

const advanceBody = wireInput('advanceClock', advanceClockSchema, advanceClockFieldCodes);

builder.mutationFields((t) => ({
  advanceClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/clock/advance: move the clock forward by `seconds`, `to` an instant or to the `next` named ' +
      'moment (give exactly one), running all due work on the way. `next: settlement` goes to when every ACH ' +
      "entry now in flight has settled; with none in flight, to the next Same-Day ACH window's settlement.",
    args: {
      seconds: t.arg.int({ description: 'How far to move, in seconds (or give to or next).' }),
      to: t.arg({ type: 'DateTime', description: 'The instant to move to (or give seconds or next).' }),
      next: t.arg({
        type: ClockMarkEnum,
        description: 'The named moment to move to, e.g. settlement (or give seconds or to).',
      }),
    },
    resolve: (_root, args, ctx) =>
      advanceClock(
        serviceContext(ctx),
        // `to` is a DateTime here, an ISO 8601 string on the wire.
        advanceBody.parse(
          advanceBody.body({ seconds: args.seconds, to: args.to?.toISOString(), next: args.next }),
        ),
      ),
  }),
  freezeClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/clock/freeze: stop the clock where it is (due work waits).',
    resolve: (_r, _a, ctx) => freezeClock(serviceContext(ctx)),
  }),
  unfreezeClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/clock/unfreeze: run on from where it stood.',
    resolve: (_r, _a, ctx) => unfreezeClock(serviceContext(ctx)),
  }),
  resetClock: t.field({
    type: ClockRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/clock/reset: back to real time, running.',
    resolve: (_r, _a, ctx) => resetClock(serviceContext(ctx)),
  }),
}));
