import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll } from 'vitest';
import { stripeFetch } from '../../src/app.ts';
import { serveOn } from '../../src/http/node-server.ts';
import { createTestApp, type TestApp, type TestMerchant } from './harness.ts';

/**
 * The Stripe dialect for a test file, as a Stripe client reaches it: the app served on a loopback
 * port of its own (stripeFetch), made before the file's tests and closed after them. `t` stands for
 * the app once it is made; `client(m)` is the official SDK with the merchant's key, unchanged but
 * for its host, port and protocol.
 */
export function stripeDialect(make: () => Promise<TestApp> = () => createTestApp()) {
  let app: TestApp | undefined;
  let server: Server | undefined;
  let port = 0;
  beforeAll(async () => {
    app = await make();
    const made = app;
    server = await new Promise<Server>((resolve) => {
      const s = serveOn(stripeFetch(made.app), '127.0.0.1', 0, () => resolve(s));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    // The SDK's idle keep-alive connections would hold close() for the server's idle timeout.
    if (server) {
      const closed = new Promise((resolve) => server?.close(resolve));
      server.closeAllConnections();
      await closed;
    }
    await app?.close();
  });
  const current = (): TestApp => {
    if (!app) throw new Error('the Stripe dialect is made in beforeAll: use it inside a test');
    return app;
  };
  return {
    /** The test app (made in beforeAll). */
    t: new Proxy({} as TestApp, { get: (_, key) => Reflect.get(current(), key) }),
    /** The dialect's port (set in beforeAll). */
    port: () => port,
    client: (m: TestMerchant, key = m.secretKey) =>
      new Stripe(key, { host: '127.0.0.1', port, protocol: 'http', telemetry: false }),
  };
}

/** The Stripe error a call is refused with (it fails the test if the call succeeds). */
export async function refusal(work: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}
