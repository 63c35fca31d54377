import { and, eq, ne } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/client.ts';
import { scheduledJobs } from '../../../src/db/scheduled-jobs.table.ts';
import { FixedClock } from '../../../src/kernel/clock.ts';
import { startMaintenance } from '../../../src/maintenance.ts';
import { cardTokens } from '../../../src/modules/card-payments/card-payments.table.ts';
import { MerchantClock } from '../../../src/modules/clock/clock.service.ts';
import {
  createSignInLink,
  endSession,
  signInWithKey,
  signInWithLink,
} from '../../../src/modules/dashboard/dashboard.service.ts';
import { dashboardSessions, dashboardSignInLinks } from '../../../src/modules/dashboard/dashboard.table.ts';
import { idempotencyKeys } from '../../../src/modules/idempotency/idempotency.table.ts';
import { purgeExpired } from '../../../src/modules/retention.ts';
import { webhookAttempts, webhookDeliveries } from '../../../src/modules/webhooks/webhooks.table.ts';
import {
  createTestApp,
  openTestDatabase,
  ownPostgresDatabase,
  type TestApp,
  type TestMerchant,
} from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

// Retention passes act on every merchant of their database: on Postgres this file gets its own.
let t: TestApp;
let dropDatabase = async () => {};
beforeAll(async () => {
  const own = await ownPostgresDatabase('sandbank_retention');
  if (own) {
    t = await createTestApp({ database: await openDatabase({ driver: 'postgres', url: own.url }) });
    dropDatabase = own.drop;
  } else {
    t = await createTestApp({ database: await openTestDatabase() });
  }
});
afterAll(async () => {
  await t.close();
  await dropDatabase();
});

type Json = Record<string, unknown>;

async function frozenMerchant(): Promise<TestMerchant> {
  const m = await t.merchant();
  expect((await t.post(m, '/v1/clock/freeze')).status).toBe(200);
  return m;
}

describe('card secrets', () => {
  it('an unused token keeps the number and CVC for its 15 minutes of clock time, then neither', async () => {
    const m = await frozenMerchant();
    const token = await t.rest<Json>('POST', '/v1/tokens', {
      key: m.publicKey,
      body: { card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' } },
    });
    expect(token.status).toBe(200);
    const row = async () => {
      const [found] = await t.database.db
        .select()
        .from(cardTokens)
        .where(eq(cardTokens.id, String(token.body.id)));
      return found;
    };
    await t.advance(m, 14 * 60);
    expect(await row()).toMatchObject({ number: '4242424242424242', cvc: '123' });
    await t.advance(m, 60);
    expect(await row()).toMatchObject({ number: '', cvc: '', last4: '4242', usedAt: null });
    // Expired, it cannot pay.
    const paid = await t.post(m, '/v1/card_payments', { amount: 1, currency: 'USD', token: token.body.id });
    expect(paid.body).toMatchObject({ error: { code: 'token_expired' } });
  });

  it('a frozen clock does not keep a token’s number and CVC past 15 minutes of real time', async () => {
    const m = await frozenMerchant();
    const token = await t.rest<Json>('POST', '/v1/tokens', {
      key: m.publicKey,
      body: { card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' } },
    });
    expect(token.status).toBe(200);
    const row = async () =>
      (
        await t.database.db
          .select()
          .from(cardTokens)
          .where(eq(cardTokens.id, String(token.body.id)))
      )[0];
    // Real time moves on (the passes are told so); the merchant's clock stands still.
    const realIn = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    await purgeExpired(t.database.db, realIn(14));
    expect(await row()).toMatchObject({ number: '4242424242424242', cvc: '123' });
    await purgeExpired(t.database.db, realIn(16));
    expect(await row()).toMatchObject({ number: '', cvc: '', last4: '4242', usedAt: null });
    // By the merchant's clock it has not expired, yet with its secrets gone it cannot pay.
    const paid = await t.post(m, '/v1/card_payments', { amount: 1, currency: 'USD', token: token.body.id });
    expect(paid.status).toBe(400);
    expect(paid.body).toMatchObject({ error: { code: 'token_expired', param: 'token' } });
  });

  it('a token past 15 minutes of real time cannot pay even before a pass blanks it', async () => {
    // The merchant's clock is frozen; the real clock it runs on is the test's to move.
    const real = new FixedClock(new Date());
    const clock = new MerchantClock({ offsetMs: 0, frozenAt: new Date('2030-01-01T12:00:00Z') }, real);
    const app = await createTestApp({ database: t.database, clock }); // shares the file's database
    const m = await app.merchant();
    const tokenize = async () => {
      const res = await app.rest<Json>('POST', '/v1/tokens', {
        key: m.publicKey,
        body: { card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' } },
      });
      expect(res.status).toBe(200);
      return String(res.body.id);
    };
    const pay = (token: string) =>
      app.rest<Json>('POST', '/v1/card_payments', {
        key: m.secretKey,
        body: { amount: 1, currency: 'USD', token },
      });
    const early = await tokenize();
    const late = await tokenize();
    real.advance(14 * 60);
    expect((await pay(early)).body).toMatchObject({ state: 'captured' });
    real.advance(2 * 60);
    const [stored] = await t.database.db.select().from(cardTokens).where(eq(cardTokens.id, late));
    expect(stored).toMatchObject({ number: '4242424242424242', usedAt: null }); // no pass has run
    const refused = await pay(late);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'token_expired', param: 'token' } });
  });

  it('a keyed virtual-card create stores its response without number or CVC; a replay still shows them', async () => {
    const m = await frozenMerchant();
    const keyed = { 'idempotency-key': 'card-1' };
    const body = {
      brand: 'visa',
      cardholder_name: 'Ada Lovelace',
      spending_controls: { limits: [{ amount: 25.5, interval: 'daily' }] },
    };
    const created = await t.post(m, '/v1/virtual_cards', body, keyed);
    expect(created.status).toBe(200);
    const number = String(created.body.number);
    const cvc = String(created.body.cvc);
    expect(number).toMatch(/^\d{16}$/);
    expect(cvc).toMatch(/^\d{3}$/);
    const [stored] = await t.database.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.merchantId, m.id), eq(idempotencyKeys.key, 'card-1')));
    expect(stored?.body).toContain(String(created.body.id));
    expect(stored?.body).not.toContain(number);
    expect(stored?.body).not.toContain(`"cvc":"${cvc}"`);
    const replayed = await t.post(m, '/v1/virtual_cards', body, keyed);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    // The same answer, byte for byte (amounts keep their two decimals), number and CVC included.
    expect(replayed.text).toBe(created.text);
  });
});

describe('retention passes', () => {
  it('purge idempotency keys, finished jobs and the delivery log by each merchant’s own clock', async () => {
    const receiver = await new Receiver().start();
    try {
      const m = await frozenMerchant();
      const other = await t.merchant(); // real time: nothing of its is old enough
      for (const merchant of [m, other]) {
        const ep = await t.post(merchant, '/v1/webhook_endpoints', {
          url: receiver.url,
          enabled_events: ['*'],
        });
        expect(ep.status).toBe(200);
        const keyed = { 'idempotency-key': `order-${merchant.id}` };
        const res = await t.post(
          merchant,
          '/v1/collect',
          { amount: 1, currency: 'USD', expires_in: 1800 },
          keyed,
        );
        expect(res.status).toBe(200);
      }
      await t.advance(m, 3600); // the expiry job runs; its events and the creation's are delivered
      await t.post(other, '/v1/clock/advance', { seconds: 3600 });
      const counts = async (merchant: TestMerchant) => ({
        keys: await t.countRows(idempotencyKeys, merchant.id),
        finishedJobs: (
          await t.database.db
            .select()
            .from(scheduledJobs)
            .where(and(eq(scheduledJobs.merchantId, merchant.id), ne(scheduledJobs.state, 'pending')))
        ).length,
        attempts: await t.countRows(webhookAttempts, merchant.id),
        deliveries: await t.countRows(webhookDeliveries, merchant.id),
      });
      const fresh = await counts(m);
      expect(fresh.keys).toBe(1);
      expect(fresh.finishedJobs).toBeGreaterThanOrEqual(1);
      expect(fresh.attempts).toBeGreaterThanOrEqual(2);
      expect(fresh.deliveries).toBe(fresh.attempts);
      const otherBefore = await counts(other);

      const pass = () => purgeExpired(t.database.db, new Date());
      await t.advance(m, 22 * 3600); // 23 h after the keyed request
      await pass();
      expect(await counts(m)).toEqual(fresh);
      await t.advance(m, 3600 + 1); // past 24 h: the key has expired
      await pass();
      expect(await counts(m)).toEqual({ ...fresh, keys: 0 });
      await t.advance(m, 30 * 86_400); // 30 days after the job ran and the attempts were made
      await pass();
      expect(await counts(m)).toEqual({ keys: 0, finishedJobs: 0, attempts: 0, deliveries: 0 });
      expect(await counts(other)).toEqual(otherBefore);
    } finally {
      await receiver.stop();
    }
  });

  it('purges in bounded statements: a pass stops after maxBatches, the next one finishes', async () => {
    const m = await frozenMerchant();
    for (let i = 0; i < 25; i++) {
      const res = await t.post(
        m,
        '/v1/collect',
        { amount: 1, currency: 'USD' },
        { 'idempotency-key': `k${i}` },
      );
      expect(res.status).toBe(200);
    }
    await t.advance(m, 86_400);
    const first = await purgeExpired(t.database.db, new Date(), { batch: 10, maxBatches: 2 });
    expect(first['idempotency keys']).toBe(20);
    expect(await t.countRows(idempotencyKeys, m.id)).toBe(5);
    const second = await purgeExpired(t.database.db, new Date(), { batch: 10, maxBatches: 2 });
    expect(second['idempotency keys']).toBe(5);
    expect(await t.countRows(idempotencyKeys, m.id)).toBe(0);
  });

  it('the server’s maintenance runner makes passes on its interval until stopped', async () => {
    const m = await frozenMerchant();
    const res = await t.post(
      m,
      '/v1/collect',
      { amount: 1, currency: 'USD' },
      { 'idempotency-key': 'runner' },
    );
    expect(res.status).toBe(200);
    await t.advance(m, 86_400);
    const runner = startMaintenance(t.database, 20, pino({ level: 'silent' }));
    try {
      const deadline = Date.now() + 10_000;
      while ((await t.countRows(idempotencyKeys, m.id)) > 0) {
        expect(Date.now(), 'the runner to purge the expired key').toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await runner.stop();
    }
  });

  it('blanks the secrets of a token that has no expiry job (made before there were any)', async () => {
    const m = await frozenMerchant();
    const now = new Date(String((await t.rest<Json>('GET', '/v1/clock', { key: m.secretKey })).body.now));
    await t.database.db.insert(cardTokens).values({
      id: 'tok_legacy0000000000000000001',
      merchantId: m.id,
      number: '4242424242424242',
      expMonth: 12,
      expYear: 2030,
      cvc: '123',
      name: null,
      brand: 'visa',
      last4: '4242',
      expiresAt: new Date(now.getTime() + 15 * 60_000),
      createdAt: now,
    });
    const row = async () =>
      (
        await t.database.db
          .select()
          .from(cardTokens)
          .where(eq(cardTokens.id, 'tok_legacy0000000000000000001'))
      )[0];
    await purgeExpired(t.database.db, new Date());
    expect(await row()).toMatchObject({ number: '4242424242424242', cvc: '123' });
    await t.advance(m, 15 * 60);
    await purgeExpired(t.database.db, new Date());
    expect(await row()).toMatchObject({ number: '', cvc: '' });
  });

  it('deletes ended or expired dashboard sessions and used or expired sign-in links a day later, in real time', async () => {
    const m = await t.merchant();
    const realNow = new Date();
    const at = (hours: number) => new FixedClock(new Date(realNow.getTime() + hours * 3_600_000));
    const ended = await signInWithKey(t.database.db, at(0), m.secretKey);
    await endSession(t.database.db, at(0), ended.token);
    await signInWithKey(t.database.db, at(0), m.secretKey); // lives its 12 hours
    const used = await createSignInLink(t.database.db, at(0), m.id);
    await signInWithLink(t.database.db, at(0), used); // a third session, also 12 hours
    await createSignInLink(t.database.db, at(0), m.id); // never used: valid 24 hours
    const rows = async () => ({
      sessions: await t.countRows(dashboardSessions, m.id),
      links: await t.countRows(dashboardSignInLinks, m.id),
    });
    expect(await rows()).toEqual({ sessions: 3, links: 2 });
    await purgeExpired(t.database.db, at(23).now());
    expect(await rows()).toEqual({ sessions: 3, links: 2 });
    await purgeExpired(t.database.db, at(25).now()); // the ended session and the used link
    expect(await rows()).toEqual({ sessions: 2, links: 1 });
    await purgeExpired(t.database.db, at(37).now()); // the sessions that expired at 12 h
    expect(await rows()).toEqual({ sessions: 0, links: 1 });
    await purgeExpired(t.database.db, at(49).now()); // the link that expired at 24 h
    expect(await rows()).toEqual({ sessions: 0, links: 0 });
  });
});
