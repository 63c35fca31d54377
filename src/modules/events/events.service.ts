import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { newId } from '../../kernel/ids.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import { events } from './events.table.ts';

export interface EventInput {
  merchantId: string;
  type: string;
  objectId: string;
  data: Record<string, unknown>;
  at: Date;
}

/**
 * Writes one `evt_` row in the caller's transaction (the transactional outbox, DESIGN.md rule 5).
 * `data` is the object as the API renders it after the change.
 */
export async function recordEvent(exec: Executor, input: EventInput): Promise<string> {
  const id = newId('event');
  await exec.insert(events).values({
    id,
    merchantId: input.merchantId,
    type: input.type,
    objectId: input.objectId,
    // Exact decimals survive: jsonb stores numbers as numeric.
    data: sql`${toWireJson(input.data)}::jsonb`,
    createdAt: input.at,
  });
  return id;
}
