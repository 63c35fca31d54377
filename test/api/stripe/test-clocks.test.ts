import { describe, expect, it } from 'vitest';
import { stripeTestClocks } from '../../../src/modules/stripe/stripe.objects.table.ts';
import type { TestMerchant } from '../../support/harness.ts';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

async function nativeClock(m: TestMerchant) {
  return (await t.get<{ now: string; frozen: boolean }>(m, '/v1/clock')).body;
}

const DAY = 86_400;

describe('test clocks through the stripe SDK', () => {
  it('creating one freezes the merchant clock at frozen_time; advancing moves it forward', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const start = Math.floor(Date.now() / 1000) + 3600;
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: start, name: 'Renewals' });
    expect(clock).toMatchObject({
      object: 'test_helpers.test_clock',
      frozen_time: start,
      name: 'Renewals',
      status: 'ready',
      status_details: {},
      livemode: false,
    });
    expect(clock.id).toMatch(/^clock_/);
    expect(clock.deletes_after).toBe(clock.created + 30 * DAY);
    expect(await nativeClock(m)).toMatchObject({ now: new Date(start * 1000).toISOString(), frozen: true });

    const advanced = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: start + DAY });
    expect(advanced).toMatchObject({ id: clock.id, frozen_time: start + DAY, status: 'ready' });
    expect((await nativeClock(m)).now).toBe(new Date((start + DAY) * 1000).toISOString());

    // A merchant has one clock: a second test clock shows and moves the same time.
    const other = await stripe.testHelpers.testClocks.create({ frozen_time: start + DAY });
    expect(other.frozen_time).toBe(start + DAY);
    await stripe.testHelpers.testClocks.advance(other.id, { frozen_time: start + 2 * DAY });
    expect((await stripe.testHelpers.testClocks.retrieve(clock.id)).frozen_time).toBe(start + 2 * DAY);

    const listed = await stripe.testHelpers.testClocks.list();
    expect(listed.data.map((c) => c.id)).toEqual([other.id, clock.id]);
    expect((await stripe.testHelpers.testClocks.list({ limit: 1 })).has_more).toBe(true);

    const deleted = await stripe.testHelpers.testClocks.del(other.id);
    expect(deleted).toEqual({ id: other.id, object: 'test_helpers.test_clock', deleted: true });
    expect((await stripe.testHelpers.testClocks.list()).data.map((c) => c.id)).toEqual([clock.id]);
    expect((await refusal(stripe.testHelpers.testClocks.retrieve(other.id))).statusCode).toBe(404);
    // The merchant's clock stays where it was.
    expect(await nativeClock(m)).toMatchObject({
      now: new Date((start + 2 * DAY) * 1000).toISOString(),
      frozen: true,
    });
  });

  it("a frozen_time a moment behind the clock freezes it where it stands; the clock's past is refused", async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const now = Math.floor(Date.now() / 1000);
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: now - 5 });
    expect(clock.frozen_time).toBeGreaterThanOrEqual(now);
    expect((await nativeClock(m)).frozen).toBe(true);

    const past = await refusal(stripe.testHelpers.testClocks.create({ frozen_time: now - 3600 }));
    expect(past).toMatchObject({ statusCode: 400, param: 'frozen_time' });
    const back = await refusal(
      stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: clock.frozen_time - 10 }),
    );
    expect(back).toMatchObject({ statusCode: 400, param: 'frozen_time' });
    const same = await refusal(
      stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: clock.frozen_time }),
    );
    expect(same).toMatchObject({ statusCode: 400, param: 'frozen_time' });
    const far = await refusal(
      stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: clock.frozen_time + 11 * 366 * DAY }),
    );
    expect(far).toMatchObject({ statusCode: 400, param: 'frozen_time' });
    expect((await stripe.testHelpers.testClocks.retrieve(clock.id)).frozen_time).toBe(clock.frozen_time);
  });

  it('refuses bad input with Stripe errors, writing nothing', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const missing = await refusal(stripe.testHelpers.testClocks.create({} as never));
    expect(missing).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'frozen_time' });
    const text = await refusal(stripe.testHelpers.testClocks.create({ frozen_time: 'soon' as never }));
    expect(text).toMatchObject({ statusCode: 400, param: 'frozen_time' });
    const unknown = await refusal(
      stripe.testHelpers.testClocks.create({
        frozen_time: Math.floor(Date.now() / 1000),
        colour: 'red',
      } as never),
    );
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'colour' });
    expect(await t.countRows(stripeTestClocks, m.id)).toBe(0);
    expect((await nativeClock(m)).frozen).toBe(false);
    const none = await refusal(stripe.testHelpers.testClocks.advance('clock_nothing', { frozen_time: 1 }));
    expect(none).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((await refusal(stripe.testHelpers.testClocks.del('clock_nothing'))).statusCode).toBe(404);
  });

  it('an Idempotency-Key replays a test clock advance without moving the clock again', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) });
    const options = { idempotencyKey: 'advance-once' };
    const first = await stripe.testHelpers.testClocks.advance(
      clock.id,
      { frozen_time: clock.frozen_time + 60 },
      options,
    );
    const again = await stripe.testHelpers.testClocks.advance(
      clock.id,
      { frozen_time: clock.frozen_time + 60 },
      options,
    );
    expect(again).toEqual(first);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect((await nativeClock(m)).now).toBe(new Date((clock.frozen_time + 60) * 1000).toISOString());
  });
});
