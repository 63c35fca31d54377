import { SandbankError } from '../../kernel/errors.ts';
import type { Announcement } from './events.announcement.ts';
import { OBJECT_KINDS, objectKindOf } from './events.kinds.ts';

/**
 * Which events a subscriber wants. An absent (null) list matches everything; a list matches its
 * members only (so an empty list matches nothing). `types` may contain "*". Setting `kinds` (even
 * to every kind) also restricts the stream to transaction objects.
 */
export interface EventFilter {
  types?: readonly string[] | null | undefined;
  kinds?: readonly string[] | null | undefined;
  objectIds?: readonly string[] | null | undefined;
}

const MAX_FILTER_VALUES = 100;

/** Validates a subscriber's filter (known kinds, bounded lists), throwing parameter_invalid. */
export function checkFilter(filter: EventFilter): void {
  for (const [param, values] of [
    ['types', filter.types],
    ['kinds', filter.kinds],
    ['ids', filter.objectIds],
  ] as const) {
    if (values && values.length > MAX_FILTER_VALUES)
      throw new SandbankError('parameter_invalid', {
        param,
        message: `${param} takes at most ${MAX_FILTER_VALUES} values.`,
      });
  }
  const unknown = filter.kinds?.find((kind) => !(OBJECT_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined)
    throw new SandbankError('parameter_invalid', {
      param: 'kinds',
      message: `Unknown kind "${unknown.slice(0, 40)}"; kinds are ${OBJECT_KINDS.join(', ')}.`,
    });
}

export function matchesFilter(event: Pick<Announcement, 'type' | 'objectId'>, filter: EventFilter): boolean {
  if (filter.types && !filter.types.includes(event.type) && !filter.types.includes('*')) return false;
  if (filter.objectIds && !filter.objectIds.includes(event.objectId)) return false;
  if (filter.kinds) {
    const kind = objectKindOf(event.objectId);
    if (kind === null || !filter.kinds.includes(kind)) return false;
  }
  return true;
}
