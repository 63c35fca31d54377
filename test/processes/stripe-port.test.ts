/**
 * The Stripe dialect's own port, as `npm start` opens it: where STRIPE_PORT says (the banner names
 * it), a start refused when a port STRIPE_PORT names is taken, and the default port skipped with a
 * warning when something else holds it (the dialect still answers under /stripe).
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STRIPE_PORT } from '../../src/config.ts';
import { freePort, ROOT, startServerProcess } from './server-process.ts';

const KEY = 'sk_test_stripeportstripeportstripeport1';

const intent = (base: string) =>
  fetch(`${base}/v1/payment_intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'amount=2000&currency=usd&payment_method=pm_card_visa&confirm=true',
  });

/** Holds a loopback port (resolves once listening); null when another process holds it already. */
async function hold(port: number): Promise<Server | null> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('the Stripe dialect’s port', () => {
  it('listens where STRIPE_PORT says, and the banner names it', async () => {
    const stripePort = await freePort();
    const server = await startServerProcess({
      args: ['--memory'],
      env: { STRIPE_PORT: String(stripePort), SANDBANK_SECRET_KEY: KEY },
    });
    try {
      const answer = await intent(`http://127.0.0.1:${stripePort}`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ object: 'payment_intent', status: 'succeeded' });
      expect(server.output()).toContain(`Stripe     http://127.0.0.1:${stripePort}`);
    } finally {
      await server.stop();
    }
  });

  it('refuses to start when the port STRIPE_PORT names is taken', async () => {
    const port = await freePort();
    const held = await hold(port);
    try {
      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', '--memory', '--port', '0'],
        {
          cwd: ROOT,
          env: { ...process.env, HOST: '127.0.0.1', DATABASE_URL: '', STRIPE_PORT: String(port) },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 (STRIPE_PORT) is already in use`);
    } finally {
      held?.close();
    }
  });

  it('starts without the default port when something holds it, and says so; /stripe still answers', async () => {
    const held = await hold(DEFAULT_STRIPE_PORT);
    try {
      const server = await startServerProcess({
        args: ['--memory'],
        env: { STRIPE_PORT: '', SANDBANK_SECRET_KEY: KEY },
      });
      try {
        expect(server.output()).toContain(`port ${DEFAULT_STRIPE_PORT} is taken`);
        expect(server.output()).toContain(`Stripe     ${server.url}/stripe`);
        expect((await intent(`${server.url}/stripe`)).status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      held?.close();
    }
  });
});
