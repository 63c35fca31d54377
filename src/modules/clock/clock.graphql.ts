import { builder } from '../../graphql/builder.ts';
import { registerObjectType } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { type DueWork, jobsByIds } from '../scheduler/scheduler.service.ts';
import { clockOperations } from './clock.operations.ts';
import { DueWorkStateValues } from './clock.schema.ts';
import type { ClockView } from './clock.service.ts';

const DueWorkStateEnum = enumOf(DueWorkStateValues);

const RanJobRef = builder.objectRef<DueWork>('DueWork').implement({
  description: 'A piece of work due at a clock time (an expiry, a release of funds, …).',
  interfaces: [NodeRef],
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'What the work does, e.g. collection.expire.' }),
    objectId: t.exposeString('objectId', { description: 'The id of the object it acts on.' }),
    dueAt: t.expose('dueAt', { type: 'DateTime', description: 'When it is due, clock time.' }),
    state: t.expose('state', { type: DueWorkStateEnum, description: 'Where it stands.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed (state failed).' }),
  }),
});

nodeKind('job', RanJobRef, jobsByIds);

export const ClockRef = builder.objectRef<ClockView>('Clock').implement({
  description: "The merchant's simulated clock: real time plus an offset, or frozen.",
  fields: (t) => ({
    now: t.expose('now', { type: 'DateTime', description: "The merchant's current time." }),
    frozen: t.exposeBoolean('frozen', { description: 'Whether the clock stands still (freezeClock).' }),
    offsetMs: t.float({
      description: 'Milliseconds ahead of real time (while running).',
      resolve: (clock) => clock.offsetMs,
    }),
    ran: t.expose('ran', { type: [RanJobRef], description: 'Work run by this change, in order.' }),
  }),
});

// The type of advanceClock's `next` (the derived argument finds it by its values).

// The Clock type answers every clock operation.
registerObjectType('Clock', ClockRef);
mountGraphqlOperations(clockOperations);
