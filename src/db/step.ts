import { eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Clock } from '../kernel/clock.ts';
import { invalidState, type Machine, transition } from '../kernel/state-machine.ts';
import type { Executor } from './client.ts';
import { updateIfState } from './compare-and-set.ts';
import { type EventInput, recordEvent } from './outbox.ts';

/** A row that moves through a state machine. */
export interface StatefulRow<S extends string> {
  id: string;
  state: S;
  updatedAt: Date;
}

/**
 * A kind of stateful object: its machine, its table, and the event a row writes when it arrives
 * in a state (its type is usually `<object>.<state>`; its data, the object as the API renders it).
 */
export interface StatefulKind<Row extends StatefulRow<S>, S extends string, E extends string> {
  machine: Machine<S, E>;
  table: PgTable & { id: PgColumn; state: PgColumn };
  event: (row: Row, publicUrl: string) => EventInput;
  /** The event types of the steps not named after the state they arrive in (a step that stays in its state). */
  eventTypes?: Partial<Record<E, string>>;
}

/** What step() reads of the service context: the merchant's clock and the public URL events link to. */
export interface StepContext {
  clock: Clock;
  publicUrl: string;
}

/**
 * The one way a stateful row changes state (house rule: state machines are data, and the outbox):
 * checks the step against the machine (409 invalid_state naming the state and the states that
 * would allow it), compare-and-sets the state with `values` (`UPDATE … WHERE id = $id AND state =
 * $from`, so of two racing writers one wins and the other gets invalid_state naming the state it
 * found), and writes the row's event in the same transaction. The row's `updatedAt` is now on the
 * merchant's clock unless `values` sets it.
 */
export async function step<Row extends StatefulRow<S>, S extends string, E extends string>(
  exec: Executor,
  ctx: StepContext,
  kind: StatefulKind<Row, S, E>,
  row: Row,
  event: E,
  values: Partial<Row> = {},
): Promise<Row> {
  const to = transition(kind.machine, row.state, event);
  const moved = (await updateIfState(exec, kind.table, row.id, row.state, {
    updatedAt: ctx.clock.now(),
    ...values,
    state: to,
  })) as Row | null;
  if (!moved) {
    const [current] = (await exec
      .select({ state: kind.table.state })
      .from(kind.table)
      .where(eq(kind.table.id, row.id))) as { state: S }[];
    throw invalidState(kind.machine, current?.state ?? row.state, event);
  }
  const written = kind.event(moved, ctx.publicUrl);
  const type = kind.eventTypes?.[event];
  await recordEvent(exec, type ? { ...written, type } : written);
  return moved;
}
