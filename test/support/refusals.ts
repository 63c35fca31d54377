/**
 * A refused request changes nothing: the answer's status and error code, and the merchant's
 * balances and the listed collections read the same before and after. Returns the error.
 */
import { expect } from 'vitest';
import type { TestApp, TestMerchant } from './harness.ts';

type Json = Record<string, unknown>;

export async function expectRefusedUnchanged(
  t: TestApp,
  m: TestMerchant,
  request: { path: string; body?: Json | undefined; status: number; code: string; lists: readonly string[] },
): Promise<Json> {
  const read = async () => {
    const paths = ['/v1/balances', ...request.lists.map((list) => `${list}?limit=100`)];
    const answers = await Promise.all(
      paths.map((path) => t.rest<{ data: unknown }>('GET', path, { key: m.secretKey })),
    );
    return answers.map((answer) => answer.body.data);
  };
  const before = await read();
  const res = await t.rest<{ error: Json }>('POST', request.path, {
    key: m.secretKey,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(request.status);
  expect(res.body.error.code).toBe(request.code);
  expect(await read()).toEqual(before);
  return res.body.error;
}
