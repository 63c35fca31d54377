import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, PUBLIC_URL, type TestApp } from '../../support/harness.ts';

/** /graphql answers cross-origin browsers from PUBLIC_URL's origin only, and never with credentials. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function preflight(origin: string) {
  const res = await t.app.request('/graphql', {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  return {
    allowOrigin: res.headers.get('access-control-allow-origin'),
    allowCredentials: res.headers.get('access-control-allow-credentials'),
  };
}

it("another site's origin is not reflected, and credentials are never allowed", async () => {
  for (const origin of ['https://evil.example', 'http://localhost:3000', 'null']) {
    const answer = await preflight(origin);
    expect(answer.allowOrigin).not.toBe(origin);
    expect(answer.allowCredentials).toBeNull();
  }
  const own = await preflight(PUBLIC_URL);
  expect(own.allowOrigin).toBe(PUBLIC_URL);
  expect(own.allowCredentials).toBeNull();
});

it('a plain POST from another origin carries no header that lets the browser read the answer', async () => {
  const res = await t.app.request('/graphql', {
    method: 'POST',
    headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  expect(res.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
});
