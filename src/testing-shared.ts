import type { SandbankMerchant, WebhookReceiver } from './testing.ts';
import { call } from './testing-receiver.ts';

/**
 * sandbank/testing's shared server: one Sandbank for a whole test run, started by the runner's
 * global setup (testing-vitest-setup.ts, testing-jest-setup.ts, or `sandbank test` for any command),
 * its url published in the SANDBANK_URL environment variable, which every runner hands on to its
 * workers and which every process started from them inherits. Each test file then signs up a
 * merchant of its own (`POST /v1/merchants`: milliseconds), whose keys, clock, objects and webhook
 * endpoints no other file sees.
 *
 * Nothing here imports the server: a test file that only signs up merchants loads this module and
 * the REST call of testing-receiver.ts, not the server's code. The public types and the exported
 * functions are src/testing.ts's, which hands its helpers (helpersFor) in.
 */

/** The environment variable that names the shared server (its base URL) to the test files. */
export const SANDBANK_URL = 'SANDBANK_URL';

/** Where a global setup keeps the stop of the server it started, for the teardown (Jest's is a module of its own). */
const STOP = Symbol.for('sandbank.testing.stopSharedServer');

type WithStop = typeof globalThis & { [STOP]?: () => Promise<void> };

/** What a global setup says when the test files cannot reach the shared server. */
const SET_UP = [
  'Start one for the test run in the runner’s global setup:',
  "  vitest     globalSetup: ['sandbank/testing/vitest-setup'] in vitest.config.ts",
  "  Jest       globalSetup: 'sandbank/testing/jest-setup', globalTeardown: 'sandbank/testing/jest-teardown'",
  '  any other  npx sandbank test -- <command> (node --test, for instance)',
  'or start one per file with startSandbank() instead (docs/guide/testing.md).',
].join('\n');

/**
 * Starts the run's server (unless SANDBANK_URL already names one: then that one is used and left
 * running) and publishes its url in SANDBANK_URL; resolves with the function that stops it.
 */
export async function shareServer(
  start: () => Promise<{ url: string; close(): Promise<void> }>,
): Promise<() => Promise<void>> {
  const holder = globalThis as WithStop;
  if (process.env[SANDBANK_URL]) {
    const stop = async () => {};
    holder[STOP] = stop;
    return stop;
  }
  const sandbank = await start();
  process.env[SANDBANK_URL] = sandbank.url;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      if (holder[STOP] === stop) delete holder[STOP];
      if (process.env[SANDBANK_URL] === sandbank.url) delete process.env[SANDBANK_URL];
      await sandbank.close();
    })();
    return stopping;
  };
  holder[STOP] = stop;
  return stop;
}

/** Stops the server the last shareServer() of this process started (nothing if none). */
export async function stopSharedServer(): Promise<void> {
  await (globalThis as WithStop)[STOP]?.();
}

interface SignedUp {
  id: string;
  name: string;
  secret_key: string;
  public_key: string;
}

/** A merchant's keys, on the server at `url`, with close(): stops its webhook receivers. */
type SignedUpMerchant = Pick<SandbankMerchant, 'id' | 'name' | 'secretKey' | 'publicKey'> & {
  url: string;
  close(): Promise<void>;
};

/**
 * Signs up a merchant on the shared server (`options.url`, else SANDBANK_URL) and returns it with
 * the helpers that act for it and a close() that stops its webhook receivers.
 */
export async function signUpOnSharedServer<H extends object>(
  options: { name?: string; url?: string },
  helpersFor: (base: string, secretKey: string, receivers: Set<WebhookReceiver>) => H,
): Promise<SignedUpMerchant & H> {
  const given = options.url ?? process.env[SANDBANK_URL];
  if (!given)
    throw new Error(
      `sandbankMerchant(): no Sandbank server for this test run (${SANDBANK_URL} is not set).\n${SET_UP}`,
    );
  const url = given.replace(/\/+$/, '');
  let created: SignedUp;
  try {
    created = await call<SignedUp>(url, null, 'POST', '/merchants', {
      name: options.name ?? 'Test merchant',
    });
  } catch (error) {
    // fetch() rejects with a TypeError when nothing answers (the answers' errors are call()'s own).
    if (!(error instanceof TypeError)) throw error;
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    throw new Error(
      `sandbankMerchant(): the Sandbank server at ${url} does not answer (${cause}). ` +
        `${options.url ? 'That is the url given' : `${SANDBANK_URL} names it`}; a global setup's server ` +
        `stops at the end of the run, and a ${SANDBANK_URL} set before the run is used as it is.\n${SET_UP}`,
    );
  }
  const receivers = new Set<WebhookReceiver>();
  let closing: Promise<void> | null = null;
  return {
    url,
    id: created.id,
    name: created.name,
    secretKey: created.secret_key,
    publicKey: created.public_key,
    ...helpersFor(url, created.secret_key, receivers),
    close() {
      closing ??= Promise.all([...receivers].map((receiver) => receiver.close())).then(() => {});
      return closing;
    },
  };
}
