import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/kernel/clock.ts';
import { SandbankError } from '../../../src/kernel/errors.ts';
import { runIdempotent } from '../../../src/modules/idempotency/idempotency.service.ts';
import { createTestApp, type TestApp } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('runIdempotent', () => {
  it('answers 409 idempotency_key_in_use while the first request with the key is still running', async () => {
    const m = await t.merchant();
    const scope = { merchantId: m.id, key: 'slow-key', fingerprint: 'f1' };
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const first = runIdempotent(t.database.db, systemClock, scope, async () => {
      started();
      await gate;
      return { outcome: { status: 200, body: '{"id":"first"}' }, store: true };
    });
    await running;
    const second = runIdempotent(t.database.db, systemClock, scope, async () => ({
      outcome: { status: 200, body: '{"id":"second"}' },
      store: true,
    }));
    await expect(second).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
    await expect(second).rejects.toBeInstanceOf(SandbankError);
    release();
    expect(await first).toEqual({ outcome: { status: 200, body: '{"id":"first"}' }, replayed: false });
    const third = await runIdempotent(t.database.db, systemClock, scope, async () => {
      throw new Error('a replay must not run the work');
    });
    expect(third).toEqual({ outcome: { status: 200, body: '{"id":"first"}' }, replayed: true });
  });

  it('keeps nothing when the work says not to store, so the key can be used again', async () => {
    const m = await t.merchant();
    const scope = { merchantId: m.id, key: 'retry-me', fingerprint: 'f' };
    const failed = await runIdempotent(t.database.db, systemClock, scope, async () => ({
      outcome: { status: 400, body: '{}' },
      store: false,
    }));
    expect(failed.replayed).toBe(false);
    const retried = await runIdempotent(t.database.db, systemClock, scope, async () => ({
      outcome: { status: 200, body: '{"ok":true}' },
      store: true,
    }));
    expect(retried).toEqual({ outcome: { status: 200, body: '{"ok":true}' }, replayed: false });
  });
});
