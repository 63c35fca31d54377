/**
 * The conformance suite against the two sample handlers shipped in examples/webhook-handlers: the
 * correct one passes every scenario; the buggy one fails exactly the scenarios its bugs break,
 * each with an explanation that names the bug and the deliveries behind it.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHandler as startBuggy } from '../../../examples/webhook-handlers/buggy.mjs';
import { startHandler as startCorrect } from '../../../examples/webhook-handlers/correct.mjs';
import { serveOn } from '../../../src/http/node-server.ts';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';

let t: TestApp;
let server: Server;
let api: string;
beforeAll(async () => {
  t = await createTestApp();
  server = await new Promise<Server>((resolve) => {
    const s = serveOn(t.app.fetch, '127.0.0.1', 0, () => resolve(s));
  });
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  // The handlers' idle keep-alive connections would hold close() for the server's idle timeout.
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
  await t.close();
});

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function judge(m: TestMerchant, url: string, endpointSecret: string, seed: number): Promise<Json> {
  const endpoint = await t.post(m, '/v1/webhook_endpoints', { url, secret: endpointSecret });
  expect(endpoint.status, endpoint.text).toBe(200);
  const run = await t.post(m, `/v1/webhook_endpoints/${endpoint.body.id}/conformance_runs`, {
    timeout_ms: 3000,
    seed,
    wait: true,
  });
  expect(run.status, run.text).toBe(200);
  return run.body;
}

const outcomes = (run: Json) => Object.fromEntries((run.scenarios as Json[]).map((s) => [s.id, s.outcome]));

describe('the sample handlers', () => {
  it('passes the correct handler on every scenario', async () => {
    const m = await t.merchant();
    const endpointSecret = secret();
    const handler = await startCorrect({ api, key: m.secretKey, secret: endpointSecret });
    try {
      const run = await judge(m, handler.url, endpointSecret, 7);
      const failed = (run.scenarios as Json[]).filter((s) => s.outcome !== 'passed');
      expect(failed.map((s) => `${s.id}: ${s.explanation}`)).toEqual([]);
      expect(run).toMatchObject({ state: 'passed', summary: { total: 13, passed: 13 } });
    } finally {
      await handler.close();
    }
  });

  it('fails the buggy handler precisely', async () => {
    const m = await t.merchant();
    const handler = await startBuggy({ api, key: m.secretKey });
    try {
      const run = await judge(m, handler.url, secret(), 7);
      expect(run.state).toBe('failed');
      expect(outcomes(run)).toEqual({
        valid_delivery: 'passed',
        signature_invalid: 'failed',
        signature_wrong_secret: 'failed',
        timestamp_stale: 'failed',
        signature_missing: 'failed',
        duplicate_sequential: 'failed',
        duplicate_concurrent: 'failed',
        out_of_order: 'failed',
        slow_acknowledgement: 'timed_out',
        retry_after_failure: 'passed',
        unknown_event_type: 'failed',
        unknown_fields: 'passed',
        secret_rotation: 'passed',
      });
      const why = Object.fromEntries((run.scenarios as Json[]).map((s) => [s.id, String(s.explanation)]));
      expect(why.signature_invalid).toMatch(
        /answered 200 .* and the handler wrote the fulfilment once: it was signed by no secret/,
      );
      expect(why.duplicate_concurrent).toMatch(/wrote the fulfilment 3 times .* deduplicate by webhook-id/);
      expect(why.out_of_order).toContain('says "pending", but the collection is succeeded');
      expect(why.slow_acknowledgement).toMatch(/no answer .*Acknowledge first/);
    } finally {
      await handler.close();
    }
  });
});
