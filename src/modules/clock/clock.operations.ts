import { defineOperation } from '../operation.ts';
import { advanceClock, freezeClock, resetClock, unfreezeClock } from './clock.change.ts';
import { ClockWire, clockResource } from './clock.resource.ts';
import { advanceClockFieldCodes, advanceClockSchema } from './clock.schema.ts';
import { getClock } from './clock.service.ts';

/**
 * The operations on the merchant's clock, each declared once: its REST route and its GraphQL field.
 * A change commits in transactions of its own (the work due on the way, batch by batch); GraphQL
 * does not replay one.
 */

const TAGS = ['Clock'];
const Clock = { name: 'Clock', wire: ClockWire, render: clockResource };

const change = (name: string, path: string, summary: string, run: typeof freezeClock) =>
  defineOperation({
    name,
    method: 'post',
    path,
    tags: TAGS,
    summary,
    ownTransactions: true,
    output: Clock,
    run: (ctx) => run(ctx),
    graphql: { reload: false },
  });

export const clockOperations = [
  defineOperation({
    name: 'getClock',
    method: 'get',
    path: '/clock',
    tags: TAGS,
    summary: "The merchant's simulated clock",
    output: Clock,
    run: (ctx) => getClock(ctx),
    graphql: { name: 'clock' },
  }),
  defineOperation({
    name: 'advanceClock',
    method: 'post',
    path: '/clock/advance',
    tags: TAGS,
    summary: 'Move the clock forward, running every piece of due work on the way before answering',
    body: advanceClockSchema,
    codes: advanceClockFieldCodes,
    errors: ['clock_backwards'],
    ownTransactions: true,
    heavy: true,
    output: Clock,
    run: (ctx, { body }) => advanceClock(ctx, body),
    graphql: { reload: false },
  }),
  change('freezeClock', '/clock/freeze', 'Stop the clock where it is', freezeClock),
  change(
    'unfreezeClock',
    '/clock/unfreeze',
    'Let a frozen clock run again from where it stands',
    unfreezeClock,
  ),
  change('resetClock', '/clock/reset', 'Back to real time, unfrozen', resetClock),
];
