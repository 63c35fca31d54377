import { RawJson } from '../../kernel/wire-json.ts';
import type { EventRow } from './events.service.ts';

/** An event as the API and webhooks render it: `{id, object, type, created_at, data: {object}}`. */
export function eventResource(row: EventRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    created_at: row.createdAt.toISOString(),
    data: new RawJson(row.dataJson),
  };
}
