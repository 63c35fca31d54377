import { RawJson } from '../../kernel/wire-json.ts';
import type { Wire } from '../../kernel/wire-resources.ts';
import type { EventWire } from '../webhooks/webhooks.payloads.ts';
import type { EventRow } from './events.service.ts';

/**
 * An event as the API and webhooks render it: `{id, object, type, created_at, data: {object}}`.
 * `data` is embedded as recorded, exact JSON text: its object was typed by its kind's Wire when its
 * render function produced it at the change; which kind it is follows from `type`, a pairing the
 * type checker cannot see in a stored row (the suite checks it: every answer and delivery is
 * validated against the document).
 */
export function eventResource(row: EventRow): Wire<typeof EventWire> {
  const event = {
    id: row.id,
    object: 'event',
    type: row.type,
    created_at: row.createdAt.toISOString(),
    data: new RawJson(row.dataJson),
  } as const;
  return event as unknown as Wire<typeof EventWire>;
}
