/**
 * A change's row updates (src/db/row-update.ts): written only while the row is as it was read,
 * refused with StaleRow (nothing of the change written) when it has moved — through the group
 * commit's statement, through its step-by-step fallback, and in a caller's transaction.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { change, commit, groupCommitStats } from '../../../src/db/commit.ts';
import { events } from '../../../src/db/events.table.ts';
import { objectEvent } from '../../../src/db/outbox.ts';
import { type RowUpdate, StaleRow } from '../../../src/db/row-update.ts';
import { runTransaction } from '../../../src/db/tx.ts';
import { cardPayments } from '../../../src/modules/card-payments/card-payments.table.ts';
import { virtualCards } from '../../../src/modules/issuing/issuing.table.ts';
import { createTestApp, openTestDatabase, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase({ connections: 8 }) });
});
afterAll(async () => {
  await t.close();
});

const visa = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

async function authorized(m: TestMerchant): Promise<string> {
  const res = await t.rest('POST', '/v1/card_payments', {
    key: m.secretKey,
    body: { amount: '20.00', currency: 'USD', card: visa, capture: false },
  });
  expect(res.body.state).toBe('authorized');
  return String(res.body.id);
}

async function paymentRow(id: string) {
  const [row] = await t.database.db.select().from(cardPayments).where(eq(cardPayments.id, id));
  if (!row) throw new Error(`no payment ${id}`);
  return row;
}

/** A change that moves a payment to `voided` if it is still in `from`, with an event naming `tag`. */
function voiding(id: string, merchantId: string, from: string, tag: string) {
  const at = new Date('2031-01-01T00:00:00Z');
  const update: RowUpdate = {
    table: cardPayments,
    id,
    expect: { state: from },
    set: { state: 'voided', updatedAt: at },
  };
  return change()
    .update(update)
    .event(objectEvent({ id, merchantId, updatedAt: at }, 'test.row_update', { tag }));
}

async function eventsTagged(tag: string): Promise<number> {
  const rows = await t.database.db
    .select({ data: events.data })
    .from(events)
    .where(eq(events.type, 'test.row_update'));
  return rows.filter((row) => (row.data as { object: { tag: string } }).object.tag === tag).length;
}

describe('row updates in a change', () => {
  it('writes the update and the events when the row is as read (the group commit statement)', async () => {
    const m = await t.merchant();
    const id = await authorized(m);
    const before = groupCommitStats(t.database.db).statements;
    await commit({ db: t.database.db }, voiding(id, m.id, 'authorized', 'fresh'));
    expect((await paymentRow(id)).state).toBe('voided');
    expect(await eventsTagged('fresh')).toBe(1);
    expect(groupCommitStats(t.database.db).statements).toBeGreaterThan(before);
  });

  it('refuses a change whose row has moved: StaleRow, nothing written', async () => {
    const m = await t.merchant();
    const id = await authorized(m);
    const row = await paymentRow(id);
    await expect(
      commit({ db: t.database.db }, voiding(id, m.id, 'captured', 'stale')),
    ).rejects.toBeInstanceOf(StaleRow);
    const after = await paymentRow(id);
    expect(after.state).toBe('authorized');
    expect(after.updatedAt.getTime()).toBe(row.updatedAt.getTime());
    expect(await eventsTagged('stale')).toBe(0);
  });

  it('in a caller transaction it refuses the same way, and the transaction can go on', async () => {
    const m = await t.merchant();
    const id = await authorized(m);
    const outcome = await runTransaction(t.database.db, async (tx) => {
      const refused = await commit(
        { db: t.database.db, tx },
        voiding(id, m.id, 'captured', 'in-tx-stale'),
      ).then(
        () => 'written',
        (error: unknown) => (error instanceof StaleRow ? 'stale' : String(error)),
      );
      await commit({ db: t.database.db, tx }, voiding(id, m.id, 'authorized', 'in-tx-fresh'));
      return refused;
    });
    expect(outcome).toBe('stale');
    expect((await paymentRow(id)).state).toBe('voided');
    expect(await eventsTagged('in-tx-stale')).toBe(0);
    expect(await eventsTagged('in-tx-fresh')).toBe(1);
  });

  it('in one batch, a stale change fails alone and the others are written', async () => {
    const m = await t.merchant();
    const ids = await Promise.all(Array.from({ length: 6 }, () => authorized(m)));
    const results = await Promise.allSettled(
      ids.map((id, i) =>
        commit({ db: t.database.db }, voiding(id, m.id, i === 2 ? 'refunded' : 'authorized', `batch-${i}`)),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(StaleRow);
    const states = await Promise.all(ids.map(async (id) => (await paymentRow(id)).state));
    expect(states).toEqual(['voided', 'voided', 'authorized', 'voided', 'voided', 'voided']);
    for (const i of [0, 1, 3, 4, 5]) expect(await eventsTagged(`batch-${i}`)).toBe(1);
    expect(await eventsTagged('batch-2')).toBe(0);
  });

  it('of two changes moving one row at once, exactly one is written', async () => {
    const m = await t.merchant();
    const id = await authorized(m);
    const results = await Promise.allSettled([
      commit({ db: t.database.db }, voiding(id, m.id, 'authorized', 'twice-a')),
      commit({ db: t.database.db }, voiding(id, m.id, 'authorized', 'twice-b')),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(StaleRow);
    expect((await eventsTagged('twice-a')) + (await eventsTagged('twice-b'))).toBe(1);
  });

  it('a check without a set holds while the row is unchanged, and refuses once it changed', async () => {
    const m = await t.merchant();
    const card = await t.rest('POST', '/v1/virtual_cards', {
      key: m.secretKey,
      body: { brand: 'visa', cardholder_name: 'Row Check' },
    });
    const cardId = String(card.body.id);
    const [row] = await t.database.db.select().from(virtualCards).where(eq(virtualCards.id, cardId));
    if (!row) throw new Error('no card');
    const check = (tag: string) =>
      change()
        .update({
          table: virtualCards,
          id: cardId,
          expect: { state: row.state, spendingControls: row.spendingControls },
          set: {},
        })
        .event(
          objectEvent({ id: cardId, merchantId: m.id, updatedAt: row.updatedAt }, 'test.row_update', { tag }),
        );
    // Two identical checks of one row in one batch share it.
    await Promise.all([
      commit({ db: t.database.db }, check('check-1')),
      commit({ db: t.database.db }, check('check-2')),
    ]);
    expect(await eventsTagged('check-1')).toBe(1);
    expect(await eventsTagged('check-2')).toBe(1);
    const limited = await t.rest('POST', `/v1/virtual_cards/${cardId}`, {
      key: m.secretKey,
      body: { spending_controls: { limits: [{ amount: '50.00', interval: 'daily' }] } },
    });
    expect(limited.status).toBe(200);
    await expect(commit({ db: t.database.db }, check('check-3'))).rejects.toBeInstanceOf(StaleRow);
    expect(await eventsTagged('check-3')).toBe(0);
  });
});
