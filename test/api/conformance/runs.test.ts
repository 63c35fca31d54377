/**
 * Conformance runs as an API: refusals that change nothing, one run per endpoint, a receiver that
 * never answers, the JUnit report, reproducible seeds, what the run's collections' events do (and do
 * not) reach, and the merchant's isolation.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceRuns } from '../../../src/modules/conformance/conformance.table.ts';
import type { Json } from '../../support/clocked-merchant.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';
import { expectRefusedUnchanged } from '../../support/refusals.ts';

let t: TestApp;
/** A TCP server that accepts and never answers: an endpoint that hangs. */
let silent: Server;
const sockets = new Set<Socket>();
let silentUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await t.close();
});

async function endpoint(m: TestMerchant, url: string): Promise<string> {
  const res = await t.post(m, '/v1/webhook_endpoints', { url });
  expect(res.status, res.text).toBe(200);
  return String(res.body.id);
}

const runsPath = (id: string) => `/v1/webhook_endpoints/${id}/conformance_runs`;

describe('refusals', () => {
  it('refuses bad input, an unknown endpoint and an Idempotency-Key, starting nothing', async () => {
    const m = await t.merchant();
    const we = await endpoint(m, silentUrl);
    const refuse = (path: string, body: Json | undefined, status: number, code: string) =>
      expectRefusedUnchanged(t, m, { path, body, status, code, lists: ['/v1/collections', runsPath(we)] });
    await refuse(runsPath(we), { timeout_ms: 999 }, 400, 'parameter_invalid');
    await refuse(runsPath(we), { timeout_ms: 15_001 }, 400, 'parameter_invalid');
    await refuse(runsPath(we), { seed: -1 }, 400, 'parameter_invalid');
    await refuse(runsPath(we), { wait: 'yes' }, 400, 'parameter_invalid');
    await refuse(runsPath(we), { url: 'http://127.0.0.1:1/other' }, 400, 'parameter_unknown');
    await refuse(runsPath('we_unknown'), {}, 404, 'resource_not_found');
    const keyed = await t.post(m, runsPath(we), {}, { 'idempotency-key': 'k1' });
    expect(keyed.status).toBe(400);
    expect(keyed.body.error).toMatchObject({ code: 'idempotency_key_invalid' });
    expect(await t.countRows(conformanceRuns, m.id)).toBe(0);
  });

  it("never reaches another merchant's endpoint or run", async () => {
    const owner = await t.merchant();
    const other = await t.merchant();
    const we = await endpoint(owner, silentUrl);
    expect((await t.post(other, runsPath(we), {})).status).toBe(404);
    expect((await t.get(other, runsPath(we))).status).toBe(404);
    expect(await t.countRows(conformanceRuns, other.id)).toBe(0);
  });
});

describe('an endpoint that never answers', () => {
  it('is one run at a time (409), and ends with every scenario timed out within the bound', async () => {
    const m = await t.merchant();
    const we = await endpoint(m, silentUrl);
    const started = Date.now();
    const res = await t.post(m, runsPath(we), { timeout_ms: 1000 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      state: 'running',
      timeout_ms: 1000,
      summary: { total: 13, pending: 13 },
    });
    const second = await t.post(m, runsPath(we), {});
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'conformance_run_in_progress' });
    // Four runs at once per merchant: a fifth, on another endpoint, waits its turn.
    const others = await Promise.all([1, 2, 3, 4].map(() => endpoint(m, silentUrl)));
    for (const other of others.slice(0, 3))
      expect((await t.post(m, runsPath(other), { timeout_ms: 1000 })).status).toBe(200);
    const fifth = await t.post(m, runsPath(others[3] as string), { timeout_ms: 1000 });
    expect(fifth.status).toBe(409);
    expect((fifth.body.error as Json).message).toContain('4 conformance runs going');
    let run: Json = res.body;
    while (run.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await t.get(m, `${runsPath(we)}/${res.body.id}`)).body;
    }
    // The bound: four times the timeout plus ten seconds (docs/guide/webhook-conformance.md).
    expect(Date.now() - started).toBeLessThan(4 * 1000 + 10_000);
    expect(run.state).toBe('failed');
    for (const scenario of run.scenarios as Json[]) {
      expect(scenario.outcome, String(scenario.id)).toBe('timed_out');
      expect(String(scenario.explanation)).toContain('no answer');
    }
    const listed = (await t.get(m, runsPath(we))).body.data as Json[];
    expect(listed.map((r) => r.id)).toEqual([res.body.id]);
    const junit = await t.get(m, `${runsPath(we)}/${res.body.id}/junit`);
    expect(junit.status).toBe(200);
    expect(junit.headers.get('content-type')).toContain('application/xml');
    expect(junit.text.match(/<testcase /g)?.length).toBe(13);
    expect(junit.text.match(/<failure /g)?.length).toBe(13);
    expect(junit.text).toContain('tests="13" failures="13"');
  });
});

describe('the run', () => {
  it("delivers its collections' events itself: stored, yet sent to no other endpoint; the same seed sends the same", async () => {
    const m = await t.merchant();
    const bystander = await new Receiver().start();
    // Refuses everything: the forgeries pass, the rest fail. (Not the validating receiver: the
    // suite's deliveries break the contract on purpose.)
    let judgedCount = 0;
    const judged = createHttpServer((request, response) => {
      judgedCount++;
      request.resume();
      request.on('end', () => response.writeHead(400).end('no'));
    });
    await new Promise<void>((resolve) => judged.listen(0, '127.0.0.1', resolve));
    const judgedAddress = judged.address();
    const judgedUrl = `http://127.0.0.1:${typeof judgedAddress === 'object' && judgedAddress ? judgedAddress.port : 0}/`;
    try {
      await endpoint(m, bystander.url);
      const we = await endpoint(m, judgedUrl);
      const run = async () =>
        (await t.post(m, runsPath(we), { timeout_ms: 1000, seed: 42, wait: true })).body;
      const first = await run();
      expect(first.state).toBe('failed');
      const byId = (r: Json) => new Map((r.scenarios as Json[]).map((s) => [s.id, s]));
      expect((byId(first).get('signature_invalid') as Json).outcome).toBe('passed');
      expect((byId(first).get('valid_delivery') as Json).explanation).toContain('answered 400');
      // Every delivery went to the judged endpoint; the bystander got none of them.
      expect(judgedCount).toBeGreaterThanOrEqual(13);
      expect(bystander.received).toEqual([]);
      const objectId = String((byId(first).get('valid_delivery') as Json).object_id);
      const events = (await t.get(m, `/v1/events?object_id=${objectId}`)).body.data as Json[];
      expect(events.map((e) => e.type).sort()).toEqual(['collection.created', 'collection.succeeded']);
      const second = await run();
      const forged = (r: Json) =>
        ((byId(r).get('signature_invalid') as Json).deliveries as Json[])[0]?.request as Json;
      expect((forged(second).headers as Json)['webhook-signature']).toBe(
        (forged(first).headers as Json)['webhook-signature'],
      );
      const amount = async (r: Json) =>
        (await t.get(m, `/v1/collections/${(byId(r).get('out_of_order') as Json).object_id}`)).body.amount;
      expect(await amount(second)).toBe(await amount(first));
    } finally {
      await bystander.stop();
      await new Promise((resolve) => judged.close(resolve));
    }
  });
});

describe('a run whose server stopped', () => {
  it('reads as interrupted once past its bound, and no longer holds its endpoint', async () => {
    const m = await t.merchant();
    const we = await endpoint(m, 'http://127.0.0.1:9/hook');
    const hourAgo = new Date(Date.now() - 3600_000);
    await t.database.db.insert(conformanceRuns).values({
      id: 'whrun_01M8KD0000000000000000000A',
      merchantId: m.id,
      endpointId: we,
      url: 'http://127.0.0.1:9/hook',
      state: 'running',
      seed: 1,
      timeoutMs: 1000,
      scenarios: [],
      startedAt: hourAgo,
      finishedAt: null,
      createdAt: hourAgo,
      updatedAt: hourAgo,
    });
    const read = await t.get(m, `${runsPath(we)}/whrun_01M8KD0000000000000000000A`);
    expect(read.body).toMatchObject({ state: 'interrupted' });
    const next = await t.post(m, runsPath(we), { timeout_ms: 1000, wait: true });
    expect(next.status, next.text).toBe(200);
    expect(next.body.state).toBe('failed');
  });
});

describe('bounds', () => {
  it('keeps a merchant’s latest 50 runs', async () => {
    const m = await t.merchant();
    const we = await endpoint(m, 'http://127.0.0.1:9/hook');
    const long = new Date('2026-01-01T00:00:00Z');
    await t.database.db.insert(conformanceRuns).values(
      Array.from({ length: 55 }, (_, i) => ({
        id: `whrun_0000000000000000000000${String(i).padStart(4, '0')}`,
        merchantId: m.id,
        endpointId: we,
        url: 'http://127.0.0.1:9/hook',
        state: 'failed' as const,
        seed: i,
        timeoutMs: 1000,
        scenarios: [],
        startedAt: long,
        finishedAt: long,
        createdAt: long,
        updatedAt: long,
      })),
    );
    const started = await t.post(m, runsPath(we), { timeout_ms: 1000, wait: true });
    expect(started.status).toBe(200);
    expect(await t.countRows(conformanceRuns, m.id)).toBe(50);
    const oldest = (await t.get(m, `${runsPath(we)}?limit=100`)).body.data as Json[];
    expect(oldest.at(-1)?.id).toBe('whrun_00000000000000000000000006');
  });
});

describe('GraphQL', () => {
  it('starts a run, reads it as a node with its JUnit report, and lists it by endpoint', async () => {
    const m = await t.merchant();
    const we = await endpoint(m, 'http://127.0.0.1:9/hook');
    const started = await t.gql<Json>(
      `mutation { startWebhookConformanceRun(id: "${we}", input: { timeoutMs: 1000, wait: true }) {
        ... on MutationStartWebhookConformanceRunSuccess { data { id state endpointId summary scenarios } }
        ... on SandbankError { code message } } }`,
      {},
      { key: m.secretKey },
    );
    const run = (started.data.startWebhookConformanceRun as Json).data as Json;
    expect(run).toMatchObject({ state: 'failed', endpointId: we, summary: { total: 13, failed: 13 } });
    expect(((run.scenarios as Json[])[0] as Json).explanation).toContain('got no answer');
    const read = await t.gql<Json>(
      `{ node(id: "${run.id}") { ... on WebhookConformanceRun { id junit instructions } }
         webhookConformanceRuns(endpointId: "${we}") { id state }
         webhookConformanceRun(id: "${we}", run: "${run.id}") { id seed timeoutMs } }`,
      {},
      { key: m.secretKey },
    );
    expect(String((read.data.node as Json).junit)).toContain(
      '<testsuites name="Sandbank webhook conformance"',
    );
    expect((read.data.node as Json).instructions).toHaveLength(4);
    expect(read.data.webhookConformanceRuns).toEqual([{ id: run.id, state: 'failed' }]);
    expect(read.data.webhookConformanceRun).toMatchObject({ id: run.id, timeoutMs: 1000 });
    const busy = await t.gql<Json>(
      `mutation { startWebhookConformanceRun(id: "we_nope", input: {}) { ... on SandbankError { code } } }`,
      {},
      { key: m.secretKey },
    );
    expect(busy.data.startWebhookConformanceRun).toEqual({ code: 'resource_not_found' });
  });
});
