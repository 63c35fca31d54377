/**
 * What `sandbank/testing`'s startSandbank() does (src/testing.ts holds the public types and the
 * exported functions): the server started in this process, its default merchant or one of the
 * run's own, and the helpers that act for a merchant through the public REST API with its own key.
 * The server's code is imported only when a server starts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from './server.ts';
import type {
  Sandbank,
  SandbankClock,
  SandbankMerchant,
  SandboxSnapshot,
  StartSandbankOptions,
  WebhookReceiver,
} from './testing.ts';
import { checkWebhooks } from './testing-conformance.ts';
import { call, startReceiver } from './testing-receiver.ts';
import { expectRequestOf, requestsOf } from './testing-requests.ts';

export function helpersFor(
  base: string,
  secretKey: string,
  receivers: Set<WebhookReceiver>,
): Pick<
  SandbankMerchant,
  | 'advanceClock'
  | 'reset'
  | 'snapshot'
  | 'restore'
  | 'webhookReceiver'
  | 'requests'
  | 'expectRequest'
  | 'checkWebhooks'
> {
  return {
    advanceClock: (by) =>
      call<SandbankClock>(
        base,
        secretKey,
        'POST',
        '/clock/advance',
        'seconds' in by
          ? { seconds: by.seconds }
          : { to: by.to instanceof Date ? by.to.toISOString() : by.to },
      ),
    reset: () => call<Record<string, unknown>>(base, secretKey, 'POST', '/simulate/reset'),
    snapshot: (name) => call<SandboxSnapshot>(base, secretKey, 'POST', '/sandbox/snapshots', { name }),
    restore: (name) =>
      call<SandboxSnapshot>(
        base,
        secretKey,
        'POST',
        `/sandbox/snapshots/${encodeURIComponent(name)}/restore`,
      ),
    async webhookReceiver(options = {}) {
      const receiver = await startReceiver(base, secretKey, options, (closed) => receivers.delete(closed));
      receivers.add(receiver);
      return receiver;
    },
    requests: (options) => requestsOf(base, secretKey, options),
    expectRequest: (match) => expectRequestOf(base, secretKey, match),
    checkWebhooks: (options) => checkWebhooks(base, secretKey, options),
  };
}

interface SignedUp {
  id: string;
  name: string;
  secret_key: string;
  public_key: string;
}

/** Picks a free loopback port (for a public URL that names the port the server will listen on). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function startSandbankServer(options: StartSandbankOptions): Promise<Sandbank> {
  const host = options.host ?? '127.0.0.1';
  const env: Record<string, string> = {
    // Sign-ups are how tests get merchants: no per-minute cap. Webhooks go to loopback receivers.
    SIGNUPS_PER_MINUTE: '0',
    WEBHOOK_BLOCK_PRIVATE_NETWORKS: 'false',
    // A test suite's data need not survive a crash: commits are not waited onto the disk
    // (env: { SANDBANK_DURABILITY: 'full' } to test the server's durability itself).
    SANDBANK_DURABILITY: 'relaxed',
    // The Stripe dialect on a free port of its own (stripeUrl), never a port another run may hold.
    STRIPE_PORT: '0',
    ...options.env,
    HOST: host,
    LOG_LEVEL: options.logLevel ?? 'silent',
  };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else if (options.dataDir) env.SANDBANK_DATA_DIR = options.dataDir;
  else env.SANDBANK_MEMORY = '1';
  if (options.secretKey) env.SANDBANK_SECRET_KEY = options.secretKey;
  if (options.publicKey) env.SANDBANK_PUBLIC_KEY = options.publicKey;
  // The server's code is loaded here, not on import: a test file that only signs up merchants on
  // the run's shared server (sandbankMerchant) does not load it. On PGlite the database starts
  // opening in its thread first, while the rest of the server loads (as `npm start` does).
  const [{ prestart }, { chooseDatabase }] = await Promise.all([
    import('./prestart.ts'),
    import('./storage.ts'),
  ]);
  prestart(chooseDatabase(env, []), env);
  const [{ loadConfig }, { createLogger }, { startServer }] = await Promise.all([
    import('./config.ts'),
    import('./observability.ts'),
    import('./server.ts'),
  ]);
  // The links the server hands out must name the port it listens on: with port 0, pick one first
  // (a port taken in between makes the start fail with EADDRINUSE: it is tried again).
  let server: RunningServer | undefined;
  for (let attempt = 0; !server; attempt++) {
    const port = options.port ?? (await freePort(host));
    env.PORT = String(port);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    env.PUBLIC_URL = options.publicUrl ?? `http://${urlHost}:${port}`;
    const config = loadConfig(env, []);
    try {
      server = await startServer(config, createLogger(config.logLevel));
    } catch (error) {
      const retry = options.port === undefined && attempt < 3 && /already in use/.test(String(error));
      if (!retry) throw error;
    }
  }
  const running = server;
  const base = running.url;
  const receivers = new Set<WebhookReceiver>();
  const signUp = (name: string) => call<SignedUp>(base, null, 'POST', '/merchants', { name });
  const merchant = running.defaultMerchant;
  let own: { id: string; name: string; secretKey: string; publicKey: string };
  // The default merchant when its keys were made or pinned by this start (keys read back from an
  // existing database belong to whoever made them: a merchant of this run's own instead).
  const knownNow =
    merchant.created || (env.SANDBANK_SECRET_KEY !== undefined && env.SANDBANK_PUBLIC_KEY !== undefined);
  if (knownNow && merchant.secretKey && merchant.publicKey) {
    own = {
      id: merchant.merchant.id,
      name: merchant.merchant.name,
      secretKey: merchant.secretKey,
      publicKey: merchant.publicKey,
    };
  } else {
    // A database whose default merchant's keys were issued before (and not pinned): a merchant of
    // this run's own, whose keys are known.
    try {
      const created = await signUp('Test merchant');
      own = {
        id: created.id,
        name: created.name,
        secretKey: created.secret_key,
        publicKey: created.public_key,
      };
    } catch (error) {
      await running.close();
      throw error;
    }
  }
  let closing: Promise<void> | null = null;
  return {
    url: base,
    stripeUrl: running.stripeUrl,
    ...own,
    ...helpersFor(base, own.secretKey, receivers),
    async newMerchant(name = 'Test merchant') {
      const created = await signUp(name);
      return {
        id: created.id,
        name: created.name,
        secretKey: created.secret_key,
        publicKey: created.public_key,
        ...helpersFor(base, created.secret_key, receivers),
      };
    },
    close() {
      closing ??= (async () => {
        await Promise.all([...receivers].map((receiver) => receiver.close()));
        await running.close();
      })();
      return closing;
    },
  };
}
