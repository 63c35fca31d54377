import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Executor } from '../../../src/db/client.ts';
import { systemClock } from '../../../src/kernel/clock.ts';
import { parseAnnouncement } from '../../../src/modules/events/events.announcement.ts';
import { EventBus } from '../../../src/modules/events/events.bus.ts';
import { checkFilter, matchesFilter } from '../../../src/modules/events/events.filter.ts';
import { objectKindOf } from '../../../src/modules/events/events.kinds.ts';
import { recordEvent } from '../../../src/modules/events/events.service.ts';
import type { EventStream } from '../../../src/modules/events/events.subscriber.ts';
import { createMerchant } from '../../../src/modules/merchants/merchants.service.ts';
import { openTestDatabase } from '../../support/harness.ts';

describe('the bus filter', () => {
  it('maps id prefixes to transaction kinds', () => {
    expect(objectKindOf('col_01ABC')).toBe('collection');
    expect(objectKindOf('pay_01ABC')).toBe('payment_attempt');
    expect(objectKindOf('btx_01ABC')).toBe('balance_transaction');
    expect(objectKindOf('we_01ABC')).toBeNull();
    expect(objectKindOf('col')).toBeNull();
    expect(objectKindOf('constructor_x')).toBeNull();
  });

  it('matches types, kinds and object ids; absent means any, empty means none', () => {
    const event = { type: 'collection.succeeded', objectId: 'col_1' };
    expect(matchesFilter(event, {})).toBe(true);
    expect(matchesFilter(event, { types: null, kinds: undefined })).toBe(true);
    expect(matchesFilter(event, { types: ['collection.succeeded'] })).toBe(true);
    expect(matchesFilter(event, { types: ['*'] })).toBe(true);
    expect(matchesFilter(event, { types: ['collection.created'] })).toBe(false);
    expect(matchesFilter(event, { types: [] })).toBe(false);
    expect(matchesFilter(event, { kinds: ['collection'] })).toBe(true);
    expect(matchesFilter(event, { kinds: ['payment_attempt'] })).toBe(false);
    expect(matchesFilter(event, { objectIds: ['col_1', 'col_2'] })).toBe(true);
    expect(matchesFilter(event, { objectIds: ['col_2'] })).toBe(false);
    expect(matchesFilter({ type: 'webhook.test', objectId: 'we_1' }, { kinds: ['collection'] })).toBe(false);
    expect(matchesFilter({ type: 'webhook.test', objectId: 'we_1' }, {})).toBe(true);
  });

  it('rejects unknown kinds and oversized lists', () => {
    expect(() => checkFilter({ kinds: ['collection', 'no_such_kind'] })).toThrow(
      /Unknown kind "no_such_kind"/,
    );
    expect(() => checkFilter({ objectIds: Array.from({ length: 101 }, (_, i) => `col_${i}`) })).toThrow(
      /at most 100/,
    );
    expect(() => checkFilter({ kinds: ['collection'], types: ['collection.created'] })).not.toThrow();
  });

  it('parses announcements and ignores anything else', () => {
    expect(
      parseAnnouncement(
        '{"id":"evt_1","merchant_id":"mch_1","type":"collection.created","object_id":"col_1"}',
      ),
    ).toEqual({
      id: 'evt_1',
      merchantId: 'mch_1',
      type: 'collection.created',
      objectId: 'col_1',
      deliveries: false,
    });
    expect(
      parseAnnouncement(
        '{"id":"evt_2","merchant_id":"mch_1","type":"collection.created","object_id":"col_1","deliveries":true}',
      )?.deliveries,
    ).toBe(true);
    expect(parseAnnouncement('not json')).toBeNull();
    expect(parseAnnouncement('null')).toBeNull();
    expect(parseAnnouncement('{"id":"evt_1"}')).toBeNull();
  });
});

describe('the event bus on the test database', () => {
  let database: Database;
  let bus: EventBus;
  let merchantA: string;
  let merchantB: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    bus = new EventBus(database, pino({ level: 'silent' }), { maxQueue: 3 });
    merchantA = (await createMerchant(database.db, systemClock, { name: 'A' })).merchant.id;
    merchantB = (await createMerchant(database.db, systemClock, { name: 'B' })).merchant.id;
  });
  afterAll(async () => {
    await bus.close();
    await database.close();
  });

  const record = (exec: Executor, merchantId: string, objectId: string, type = 'collection.created') =>
    recordEvent(exec, {
      merchantId,
      type,
      objectId,
      data: { object: { id: objectId, state: type.split('.')[1] } },
      at: new Date(),
    });

  /** The stream's next event, failing after 10 s of real time. */
  async function next(stream: EventStream) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no event within 10 s')), 10_000);
    });
    return Promise.race([stream.next(), timeout]).finally(() => clearTimeout(timer));
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it("delivers committed events in order, only the merchant's, never a rolled-back one", async () => {
    const stream = await bus.subscribe(merchantA);
    await expect(
      database.db.transaction(async (tx) => {
        await record(tx, merchantA, 'col_rolledback');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await record(database.db, merchantB, 'col_b');
    const ids = await database.db.transaction(async (tx) => [
      await record(tx, merchantA, 'col_a1'),
      await record(tx, merchantA, 'col_a1', 'collection.succeeded'),
    ]);
    const first = await next(stream);
    expect(first.value).toMatchObject({ id: ids[0], merchantId: merchantA, objectId: 'col_a1' });
    expect(first.value?.objectKind).toBe('collection');
    expect(JSON.parse(first.value?.dataJson ?? '')).toEqual({ object: { id: 'col_a1', state: 'created' } });
    expect((await next(stream)).value).toMatchObject({ id: ids[1], type: 'collection.succeeded' });
    await stream.return();
    expect(bus.size).toBe(0);
  });

  it('filters per subscriber', async () => {
    const succeeded = await bus.subscribe(merchantA, { types: ['collection.succeeded'] });
    const watched = await bus.subscribe(merchantA, { kinds: ['collection'], objectIds: ['col_w'] });
    await record(database.db, merchantA, 'col_x', 'collection.succeeded');
    await record(database.db, merchantA, 'col_w');
    expect((await next(succeeded)).value).toMatchObject({ objectId: 'col_x' });
    expect((await next(watched)).value).toMatchObject({ objectId: 'col_w', type: 'collection.created' });
    await succeeded.return();
    await watched.return();
  });

  it('ends a pending next() when the subscriber returns', async () => {
    const stream = await bus.subscribe(merchantA);
    const pending = stream.next();
    expect(bus.size).toBe(1);
    await stream.return();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    expect(bus.size).toBe(0);
  });

  it('drops a subscriber whose queue overflows, with an error after what it had queued', async () => {
    const slow = await bus.subscribe(merchantA);
    await database.db.transaction(async (tx) => {
      for (let i = 0; i < 4; i++) await record(tx, merchantA, `col_slow${i}`);
    });
    await until(() => bus.size === 0, 'the slow subscriber to be dropped');
    for (let i = 0; i < 3; i++) expect((await next(slow)).value).toMatchObject({ objectId: `col_slow${i}` });
    await expect(slow.next()).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(slow.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it("a subscriber that never reads delays nobody else's events: it alone is dropped", async () => {
    const stalled = await bus.subscribe(merchantA);
    const other = await bus.subscribe(merchantB);
    const sameMerchant = await bus.subscribe(merchantA);
    const seen: string[] = [];
    const reading = (async () => {
      for (let i = 0; i < 4; i++) seen.push(String((await next(sameMerchant)).value?.objectId));
    })();
    await database.db.transaction(async (tx) => {
      // Four: one more than a queue holds, and no more than a reader waiting for the first can take.
      for (let i = 0; i < 4; i++) await record(tx, merchantA, `col_stall${i}`);
      await record(tx, merchantB, 'col_other');
    });
    expect((await next(other)).value).toMatchObject({ objectId: 'col_other' });
    await reading;
    expect(seen).toEqual([0, 1, 2, 3].map((i) => `col_stall${i}`));
    // The one that never read fell more than 3 behind and was dropped; the others are still live.
    await until(() => bus.size === 2, 'the stalled subscriber to be dropped');
    for (let i = 0; i < 3; i++) await stalled.next();
    await expect(stalled.next()).rejects.toMatchObject({ code: 'rate_limited' });
    await other.return();
    await sameMerchant.return();
  });

  it('ends every stream when it closes', async () => {
    const own = new EventBus(database, pino({ level: 'silent' }));
    const stream = await own.subscribe(merchantB);
    const pending = stream.next();
    await own.close();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    await expect(own.subscribe(merchantB)).rejects.toThrow(/closed/);
  });
});
