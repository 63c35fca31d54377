import { RawJson } from '../../kernel/wire-json.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import type { EventWire } from '../webhooks/webhooks.payloads.ts';
import type { EventRow } from './events.service.ts';

type EventBody = Wire<typeof EventWire>;

/**
 * An event as the API and webhooks render it: `{id, object, type, created_at, data: {object}}`. The
 * data is embedded as recorded: the object as its kind's render function returned it at the change
 * (each typed by its own Wire), kept as exact JSON text, so it is not re-typed here.
 */
export function eventResource(row: EventRow): EventBody {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    created_at: row.createdAt.toISOString(),
    data: new RawJson(row.dataJson) as unknown as EventBody['data'],
  } as EventBody;
}
