/** What a notification carries. */
export interface Announcement {
  id: string;
  merchantId: string;
  type: string;
  objectId: string;
  /** True when the event's statement queued webhook deliveries (the worker has work). */
  deliveries: boolean;
}

/** Parses a notification payload; null when it is not one of ours. */
export function parseAnnouncement(payload: string): Announcement | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { id, merchant_id, type, object_id, deliveries } = value as Record<string, unknown>;
  if (
    typeof id !== 'string' ||
    typeof merchant_id !== 'string' ||
    typeof type !== 'string' ||
    typeof object_id !== 'string'
  )
    return null;
  return { id, merchantId: merchant_id, type, objectId: object_id, deliveries: deliveries === true };
}
