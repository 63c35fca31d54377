/**
 * Relations read in their object's own statement (src/db/nested.ts): a collection's detail, read in
 * one statement, holds exactly the rows — every column, with its type (bigint money, Date, json,
 * null) — that reading each table on its own gives, in the same order; and a collection read that
 * way is expired first when it is due, as any other read of it.
 */
import { and, asc, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayments, cardRefunds } from '../../../src/modules/card-payments/card-payments.table.ts';
import { findDetail } from '../../../src/modules/collections/collections.detail.ts';
import { collections, paymentAttempts } from '../../../src/modules/collections/collections.table.ts';
import { transfers } from '../../../src/modules/transfers/transfers.table.ts';
import { createTestApp, openTestDatabase, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { CARD, form, ok } from '../../support/populate.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ database: await openTestDatabase() });
});
afterAll(async () => {
  await t.close();
});

const DECLINED = CARD.replace('4242424242424242', '4000000000000002');
const BANK =
  'method=bank_account&bank_account[name]=Ada+Lovelace&bank_account[routing_number]=110000000&bank_account[account_number]=000123456789';

/** Each relation read the plain way, one statement per table. */
async function readApart(merchantId: string, collectionId: string) {
  const { db } = t.database;
  const [row] = await db.select().from(collections).where(eq(collections.id, collectionId));
  const attempts = await db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.collectionId, collectionId))
    .orderBy(desc(paymentAttempts.id));
  const debits = await db
    .select()
    .from(transfers)
    .where(eq(transfers.collectionId, collectionId))
    .orderBy(desc(transfers.id));
  const payments = await db
    .select()
    .from(cardPayments)
    .where(eq(cardPayments.collectionId, collectionId))
    .orderBy(desc(cardPayments.id));
  const withRefunds = [];
  for (const payment of payments) {
    const refunds = await db
      .select()
      .from(cardRefunds)
      .where(eq(cardRefunds.cardPaymentId, payment.id))
      .orderBy(asc(cardRefunds.id));
    withRefunds.push({ ...payment, refunds });
  }
  expect(row?.merchantId).toBe(merchantId);
  return { row, attempts, debits, cardPayments: withRefunds };
}

async function collectionOf(m: TestMerchant, reference: string): Promise<string> {
  return String((await ok(form(t, m, '/v1/collect', `amount=25.10&currency=usd&reference=${reference}`))).id);
}

describe('a collection and its relations in one statement', () => {
  it('reads the same rows, of the same types, as one statement per table', async () => {
    const m = await t.merchant();
    // A declined card, then a bank payment: a failed card payment and an ACH debit.
    const byBank = await collectionOf(m, 'nested-bank');
    const declined = await form(t, m, '/v1/simulate/collections/nested-bank/pay', `method=card&${DECLINED}`);
    expect(declined.status).toBe(402);
    await ok(form(t, m, '/v1/simulate/collections/nested-bank/pay', BANK));
    // A card payment refunded twice, and two attempts of an older version (one with nulls).
    const byCard = await collectionOf(m, 'nested-card');
    const paid = await ok(form(t, m, '/v1/simulate/collections/nested-card/pay', `method=card&${CARD}`));
    const paymentId = String((paid.payment as { id: string }).id);
    await ok(form(t, m, `/v1/card_payments/${paymentId}/refunds`, 'amount=1.05'));
    await ok(form(t, m, `/v1/card_payments/${paymentId}/refunds`, 'amount=2'));
    const at = new Date('2031-02-03T04:05:06.789Z');
    await t.database.db.insert(paymentAttempts).values(
      ['pa_nested_a', 'pa_nested_b'].map((id, n) => ({
        id: `${id}_${m.id}`,
        merchantId: m.id,
        collectionId: byCard,
        method: 'card' as const,
        state: 'failed' as const,
        amount: 9_007_199_254_740_993n, // beyond a double's integers: must stay exact
        currency: 'USD',
        createdAt: at,
        updatedAt: new Date(at.getTime() + n),
      })),
    );
    // And one with none at all.
    const bare = await collectionOf(m, 'nested-bare');

    for (const [reference, id] of [
      ['nested-bank', byBank],
      ['nested-card', byCard],
      [bare, bare],
    ] as const) {
      const apart = await readApart(m.id, id);
      const together = await findDetail(t.database.db, m.id, reference);
      expect(together).toEqual(apart);
      expect(together).not.toBeNull();
      if (!together) continue;
      // toEqual would not tell a bigint from a number nor a Date from its string: compare types.
      for (const [relation, rows] of Object.entries(together)) {
        const plain = (apart as Record<string, unknown>)[relation];
        for (const [n, row] of (Array.isArray(rows) ? rows : [rows]).entries()) {
          const other = (Array.isArray(plain) ? plain[n] : plain) as Record<string, unknown>;
          for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
            expect(typeof value, `${relation}.${key}`).toBe(typeof other[key]);
            expect(value instanceof Date, `${relation}.${key}`).toBe(other[key] instanceof Date);
          }
        }
      }
    }
    const card = await findDetail(t.database.db, m.id, 'nested-card');
    expect(card?.cardPayments[0]?.refunds.map((refund) => refund.amount)).toEqual([105n, 200n]);
    expect(card?.attempts.map((attempt) => attempt.amount)).toEqual([
      9_007_199_254_740_993n,
      9_007_199_254_740_993n,
    ]);
    const bank = await findDetail(t.database.db, m.id, 'nested-bank');
    expect(bank?.debits).toHaveLength(1);
    expect(bank?.cardPayments.map((payment) => payment.state)).toEqual(['declined']);
  });

  it("names no other merchant's collection, and no collection for a reference none can have", async () => {
    const [a, b] = [await t.merchant(), await t.merchant()];
    await collectionOf(a, 'nested-mine');
    expect(await findDetail(t.database.db, b.id, 'nested-mine')).toBeNull();
    expect(await findDetail(t.database.db, a.id, 'nested\u0000mine')).toBeNull();
    const res = await t.rest('GET', '/v1/collections/nested-mine', { key: b.secretKey });
    expect(res.status).toBe(404);
  });

  it('expires a collection that is due before answering it', async () => {
    const m = await t.merchant();
    await ok(form(t, m, '/v1/collect', 'amount=3&currency=usd&reference=nested-due'));
    const before = await t.rest<{ state: string }>('GET', '/v1/collections/nested-due', { key: m.secretKey });
    expect(before.body.state).toBe('pending');
    // Moved past its expiry without running due work: the read itself expires it.
    await t.database.db
      .update(collections)
      .set({ expiresAt: new Date(Date.now() - 86_400_000 * 365 * 10) })
      .where(and(eq(collections.merchantId, m.id), eq(collections.reference, 'nested-due')));
    const after = await t.rest<{ state: string }>('GET', '/v1/collections/nested-due', { key: m.secretKey });
    expect(after.status).toBe(200);
    expect(after.body.state).toBe('expired');
    const [row] = await t.database.db
      .select()
      .from(collections)
      .where(and(eq(collections.merchantId, m.id), eq(collections.reference, 'nested-due')));
    expect(row?.state).toBe('expired');
  });
});
