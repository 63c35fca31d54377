/**
 * Another file of the same run, in another worker at the same time as checkout.test.ts, on the same
 * server: its merchant sees none of that file's objects, and its clock moves alone.
 */
import { sandbankMerchant } from 'sandbank/testing';
import { afterAll, expect, it } from 'vitest';

const shop = await sandbankMerchant({ name: 'Order history tests' });
afterAll(() => shop.close());

async function get<T>(key: string, path: string): Promise<T> {
  const response = await fetch(`${shop.url}/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

it('lists only this merchant’s collections', async () => {
  for (const amount of [10, 20]) {
    const response = await fetch(`${shop.url}/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount, currency: 'USD' }),
    });
    expect(response.status).toBe(200);
  }
  const listed = await get<{ data: { amount: number }[] }>(shop.secretKey, '/collections');
  expect(listed.data.map((collection) => collection.amount).sort()).toEqual([10, 20]);
});

it('moves one merchant’s clock only', async () => {
  // A merchant for this test alone: as cheap as the file's, for tests that must not share one.
  const other = await sandbankMerchant({ name: 'Another shop' });
  await shop.advanceClock({ seconds: 3600 });
  const theirs = await get<{ offset_ms: number }>(other.secretKey, '/clock');
  expect(theirs.offset_ms).toBe(0);
  await other.close();
});
