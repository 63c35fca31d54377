import { createMiddleware } from 'hono/factory';
import { SandbankError } from '../../../kernel/errors.ts';
import {
  fingerprintOf,
  parseIdempotencyKey,
  runIdempotent,
} from '../../../modules/idempotency/idempotency.service.ts';
import { isUnreplayed, runsOwnTransactions } from '../../../rest/routes.ts';
import type { RestEnv } from '../../../rest/types.ts';

/**
 * The text a body's fingerprint is taken over, the same for every way of writing one request: keys
 * in sorted order, and a number as its literal text, as a form writes it. So a JSON body and its
 * form twin (`{"amount": 10, "capture": false}` and `capture=false&amount=10`) are one request, and
 * the second replays the first's answer. As in a form, `10` and `"10"` are then the same value to
 * a key: the fields that take either (amounts, expiry dates) read them alike anyway.
 */
export function canonicalBody(value: unknown): string {
  if (typeof value === 'number') return JSON.stringify(String(value));
  if (Array.isArray(value)) return `[${value.map(canonicalBody).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalBody(record[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Idempotency-Key on any POST: the handler runs inside the transaction that stores its
 * response. 2xx outcomes and failures that still wrote (a recorded card decline) are stored and
 * replayed with Idempotent-Replayed: true; validation failures roll back and are not stored. An
 * operation declared `ownTransactions` (a clock advance) runs outside it, and its answer is stored
 * after it.
 */
export const idempotency = createMiddleware<RestEnv>(async (c, next) => {
  const header = c.req.header('idempotency-key');
  // An operation that takes no key (a key roll) refuses one itself, before any stored answer is read.
  if (c.req.method !== 'POST' || header === undefined || isUnreplayed(c.req.method, c.req.path))
    return next();
  const key = parseIdempotencyKey(header);
  const deps = c.get('deps');
  const merchantId = c.get('principal').merchant.id;
  const fingerprint = fingerprintOf(c.req.method, c.req.path, canonicalBody(c.get('body')));
  const { outcome, replayed } = await runIdempotent(
    deps.database.db,
    c.get('clock'),
    { merchantId, key, fingerprint },
    async (tx) => {
      c.set('tx', tx);
      try {
        await next();
      } finally {
        c.set('tx', undefined);
      }
      const keep = c.res.status < 400 || (c.error instanceof SandbankError && c.error.commitWrites);
      if (!keep) return { outcome: null, store: false };
      return { outcome: { status: c.res.status, body: await c.res.clone().text() }, store: true };
    },
    { ownTransactions: runsOwnTransactions(c.req.method, c.req.path) },
  );
  if (replayed && outcome) {
    c.res = new Response(outcome.body, {
      status: outcome.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'Idempotent-Replayed': 'true' },
    });
  }
});
