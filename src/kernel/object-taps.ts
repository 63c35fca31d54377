/**
 * Taps on objects: something that wants to see (and may slow or fail) the API calls made on one
 * object of one merchant — a webhook-handler conformance run watching what the handler under test
 * does with the object of a scenario. The REST app passes every call whose path names an object
 * (`/v1/<kind>/<key>…`) through `gate()` before anything else of it (no transaction is open yet,
 * so a slow gate holds nobody's rows); an operation wraps its service call in `tapped()` with the
 * key it was called by (an id or a reference), which counts it. With no tap set, both are a
 * map-size check. Taps live in the process's memory: they see the calls this process serves.
 */

/** A read (GET) or a write (a POST that changes the object). */
export type TapKind = 'read' | 'write';

export interface ObjectTap {
  /** Before the call (REST): may wait (a slow dependency) or throw (a failing one: the call is refused). */
  enter(kind: TapKind): Promise<void>;
  /** After the call ran: whether it succeeded. */
  leave(kind: TapKind, ok: boolean): void;
}

const taps = new Map<string, ObjectTap>();

const keyOf = (merchantId: string, key: string) => `${merchantId}\u0000${key}`;

/** Sets `tap` on the object known by `keys` (its id, its reference); answers the function that removes it. */
export function tapObject(merchantId: string, keys: readonly string[], tap: ObjectTap): () => void {
  for (const key of keys) taps.set(keyOf(merchantId, key), tap);
  return () => {
    for (const key of keys) if (taps.get(keyOf(merchantId, key)) === tap) taps.delete(keyOf(merchantId, key));
  };
}

/** Passes a REST call on the object `key` names through its tap's gate, if it has one. */
export async function gate(merchantId: string, key: string, kind: TapKind): Promise<void> {
  if (taps.size === 0) return;
  await taps.get(keyOf(merchantId, key))?.enter(kind);
}

/** Runs a call on the object `key` names, counted by its tap if it has one. */
export async function tapped<T>(
  merchantId: string,
  key: string,
  kind: TapKind,
  call: () => Promise<T>,
): Promise<T> {
  if (taps.size === 0) return call();
  const tap = taps.get(keyOf(merchantId, key));
  if (!tap) return call();
  try {
    const result = await call();
    tap.leave(kind, true);
    return result;
  } catch (error) {
    tap.leave(kind, false);
    throw error;
  }
}
