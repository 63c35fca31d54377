import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { blockedRange, WebhookTransport } from '../../../src/kernel/webhook-transport.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

// The policy is the test app's own transport's (one HTTP dispatcher): switching it here touches no
// other app's deliveries.
const transport = new WebhookTransport();
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp({ webhookTransport: transport });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

describe('blockedRange', () => {
  // Special-purpose ranges from the IANA IPv4/IPv6 registries (RFC 6890, RFC 1918, RFC 4193, …).
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata (AWS, GCP, Azure)
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS metadata over IPv6
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped: judged as the IPv4 address
    ['::ffff:10.0.0.1', 'private'],
    // IPv4-compatible (::/96) in every spelling: 127.0.0.1, metadata, even a public IPv4.
    ['::7f00:1', 'ipv4Compatible'],
    ['0:0:0:0:0:0:7f00:1', 'ipv4Compatible'],
    ['::a9fe:a9fe', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['not-an-ip', 'invalid'],
  ])('%s is blocked as %s', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111'])(
    '%s is public',
    (address) => {
      expect(blockedRange(address)).toBeNull();
    },
  );
});

type Json = Record<string, unknown>;

async function attemptsAfterTest(m: TestMerchant, url: string) {
  const created = await t.rest<Json>('POST', '/v1/webhook_endpoints', { key: m.secretKey, body: { url } });
  expect(created.status).toBe(200);
  const sent = await t.rest<Json>('POST', `/v1/webhook_endpoints/${created.body.id}/test`, {
    key: m.secretKey,
  });
  expect(sent.status).toBe(200);
  await t.rest('POST', '/v1/clock/advance', { key: m.secretKey, body: { seconds: 1 } });
  const log = await t.rest<{ data: { state: string; attempts: Json[] }[] }>(
    'GET',
    `/v1/events/${sent.body.id}/deliveries`,
    { key: m.secretKey },
  );
  return { eventId: String(sent.body.id), delivery: log.body.data[0] };
}

describe('WEBHOOK_BLOCK_PRIVATE_NETWORKS', () => {
  it('refuses loopback receivers at connect time, by literal address and by name, and records why', async () => {
    const m = await t.merchant();
    await t.rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    const port = new URL(receiver.url).port;
    // A name the sandbox resolves only when it connects: what DNS rebinding relies on. Our resolver
    // stands in for the attacker's DNS server and answers with the loopback address.
    transport.usePolicy({ blockPrivateNetworks: true }, async (host) =>
      host === 'rebind.sandbank.test'
        ? ['127.0.0.1']
        : (await lookup(host, { all: true })).map((a) => a.address),
    );
    for (const [url, reason] of [
      [receiver.url, '127.0.0.1 (loopback)'],
      [`http://localhost:${port}/hooks`, '(loopback)'],
      [`http://[::1]:${port}/hooks`, '::1 (loopback)'],
      [`http://rebind.sandbank.test:${port}/hooks`, 'resolves to 127.0.0.1 (loopback)'],
    ] as const) {
      const { delivery } = await attemptsAfterTest(m, url);
      expect(delivery?.state).toBe('pending'); // a refused connection is a failed attempt: retried on schedule
      expect(delivery?.attempts).toHaveLength(1);
      expect(delivery?.attempts[0]).toMatchObject({ status: null });
      expect(String(delivery?.attempts[0]?.error)).toContain('WEBHOOK_BLOCK_PRIVATE_NETWORKS');
      expect(String(delivery?.attempts[0]?.error)).toContain(reason);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('allows local receivers by default', async () => {
    transport.usePolicy({ blockPrivateNetworks: false });
    const m = await t.merchant();
    await t.rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    const before = receiver.received.length;
    const { delivery } = await attemptsAfterTest(m, receiver.url);
    expect(delivery).toMatchObject({ state: 'delivered' });
    expect(receiver.received).toHaveLength(before + 1);
  });

  it('delivers to the hosts WEBHOOK_ALLOWED_HOSTS names, wherever they resolve, and refuses every other private one', async () => {
    const m = await t.merchant();
    await t.rest('POST', '/v1/clock/freeze', { key: m.secretKey });
    const port = new URL(receiver.url).port;
    // Named as a compose file would (any case, a trailing dot): compared as the URL's host.
    transport.usePolicy({ blockPrivateNetworks: true, allowedHosts: ['LOCALHOST.', 'receiver'] });
    const before = receiver.received.length;
    const allowed = await attemptsAfterTest(m, `http://localhost:${port}/hooks`);
    expect(allowed.delivery).toMatchObject({ state: 'delivered' });
    expect(receiver.received).toHaveLength(before + 1);
    // The same receiver by another name or its address is not on the list.
    for (const url of [receiver.url, `http://[::1]:${port}/hooks`]) {
      const { delivery } = await attemptsAfterTest(m, url);
      expect(delivery?.state).toBe('pending');
      expect(String(delivery?.attempts[0]?.error)).toContain('WEBHOOK_BLOCK_PRIVATE_NETWORKS');
    }
    expect(receiver.received).toHaveLength(before + 1);
  });

  it('reads WEBHOOK_ALLOWED_HOSTS as hosts separated by commas or spaces, and refuses a URL or a port', () => {
    const config = (value?: string) =>
      loadConfig(value === undefined ? {} : { WEBHOOK_ALLOWED_HOSTS: value }, []).webhookAllowedHosts;
    expect(config()).toEqual([]);
    expect(config('receiver, Hooks.Internal. [::1]  10.0.0.7')).toEqual([
      'receiver',
      'hooks.internal',
      '::1',
      '10.0.0.7',
    ]);
    for (const bad of ['http://receiver', 'receiver:9000', 'receiver/hooks', '.internal'])
      expect(() => config(bad), bad).toThrow(
        /Invalid configuration WEBHOOK_ALLOWED_HOSTS: .* is not a host name/,
      );
  });
});
