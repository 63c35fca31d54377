import { builder } from '../../graphql/builder.ts';
import { registerObjectType } from '../../graphql/derive.ts';
import { describedEnum } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { type DueWork, jobsByIds } from '../scheduler/scheduler.service.ts';
import { clockOperations } from './clock.operations.ts';
import type { ADVANCE_MARKS } from './clock.schema.ts';
import type { ClockView } from './clock.service.ts';

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

// The type of advanceClock's `next` (the derived argument finds it by its values).
describedEnum('ClockMark', 'A moment advanceClock can go to by name (its `next` argument).', {
  settlement:
    'When every ACH entry now in flight has settled (standard and Same-Day, credits and debits, transfers and ' +
    "payouts); with none in flight, the next Same-Day ACH window's settlement.",
} satisfies Record<(typeof ADVANCE_MARKS)[number], string>);

// The Clock type answers every clock operation.
registerObjectType('Clock', ClockRef);
mountGraphqlOperations(clockOperations);
