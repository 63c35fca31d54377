/**
 * A posting that touches one account twice is checked entry by entry, in order, as the balance
 * passes through each guarded debit — not by its net change — and a refused one writes nothing.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isSandbankError } from '../../../src/kernel/errors.ts';
import { post } from '../../../src/modules/ledger/ledger.post.ts';
import type { EntryInput } from '../../../src/modules/ledger/ledger.rows.ts';
import { ledgerAccounts, ledgerPostings } from '../../../src/modules/ledger/ledger.table.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Twice');
  const topUp = await t.rest('POST', '/v1/simulate/balance/top_up', {
    key: m.secretKey,
    body: { amount: '0.60', currency: 'USD' },
  });
  expect(topUp.status).toBe(200);
});
afterAll(async () => {
  await t.close();
});

function postEntries(entries: EntryInput[]) {
  return t.database.db.transaction((tx) =>
    post(tx, {
      merchantId: m.id,
      currency: 'USD',
      type: 'adjustment',
      source: { type: 'test', id: 'test_1' },
      at: new Date(),
      entries,
    }),
  );
}

async function state() {
  const accounts = await t.database.db
    .select({ kind: ledgerAccounts.kind, balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.merchantId, m.id));
  const [postings] = await t.database.db
    .select({ n: count() })
    .from(ledgerPostings)
    .where(eq(ledgerPostings.merchantId, m.id));
  return { accounts: accounts.sort((a, b) => a.kind.localeCompare(b.kind)), postings: postings?.n };
}

it('refuses -1.50 then +1.00 on 0.60 available (the balance would pass below zero) and writes nothing', async () => {
  const before = await state();
  const error = await postEntries([
    { account: 'available', amount: -150n },
    { account: 'available', amount: 100n },
    { account: 'external', amount: 50n },
  ]).catch((caught: unknown) => caught);
  expect(isSandbankError(error) && error.code).toBe('insufficient_balance');
  expect(await state()).toEqual(before);
});

it('accepts +1.00 then -1.50 on 0.60 available (it never goes below zero), leaving 0.10', async () => {
  await postEntries([
    { account: 'available', amount: 100n },
    { account: 'available', amount: -150n },
    { account: 'external', amount: 50n },
  ]);
  const available = (await state()).accounts.find((a) => a.kind === 'available');
  expect(available?.balance).toBe(10n);
});
