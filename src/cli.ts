import { parseArgs } from 'node:util';
import { type CliValues, runFixturesApply, runReset, runSnapshot, runTrigger } from './cli-remote.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { systemClock } from './kernel/clock.ts';
import { DEFAULT_MAX_ATTEMPTS, defaultCursorFile, listen } from './listen.ts';
import { createMerchant, getDefaultMerchant, rollKeys } from './modules/merchants/merchants.service.ts';

const USAGE = `Usage:
  sandbank [--memory] [--port N]            start the server (as npm start; settings from the environment)
  sandbank merchants create --name NAME     create a merchant and print its keys
  sandbank keys roll [--merchant mch_...]    issue a new key pair (default merchant if omitted), revoking the old keys
  sandbank listen --forward-to URL [options] forward the merchant's events to URL, signed (Standard Webhooks)
  sandbank reset [--api http://localhost:4242] [--key sk_test_...] [--json]
                                             delete every object of the key's merchant and put its clock back
                                             to real time, through the running server (POST /v1/simulate/reset);
                                             keeps the merchant, its keys and its webhook endpoints
                                             (key: --key or SANDBANK_SECRET_KEY; --json prints the answer as is)
  sandbank snapshot save|restore|delete NAME [--api URL] [--key sk_test_...] [--json]
  sandbank snapshot list [--api URL] [--key sk_test_...] [--json]
                                             save the key's merchant's whole sandbox under a name, put it back
                                             (everything made since is gone, the clock as saved), or list them,
                                             through the running server (/v1/sandbox/snapshots)
  sandbank logs tail [--api URL] [--key sk_test_...] [--status 4xx] [--json]
                                             print the key's merchant's API requests as they happen, one line
                                             each (time, method, path, status, operation, latency, request
                                             id), from the running server's request log (GET /v1/requests);
                                             --status keeps a status, a class or a list (402, 4xx, 400,5xx);
                                             --json prints each request as JSON; Ctrl-C stops
  sandbank fixtures apply <file.json|name> [--api http://localhost:4242] [--key sk_test_...] [--json]
                                             run a fixture's steps as the key's merchant through the running
                                             server (POST /v1/simulate/fixtures): a JSON document file, or a
                                             shipped fixture by name (month-of-history, returned-ach, decline-mix);
                                             prints each step and what it made, or the step that failed
  sandbank trigger EVENT_TYPE [--set key=value ...] [--api URL] [--key sk_test_...] [--json]
                                             produce an event of that type on the running server by driving
                                             real objects (POST /v1/simulate/events); --set overrides what the
                                             type's recipe accepts (amount=12.50, return_code=R01,
                                             metadata.order=A-1 ...); some types advance the merchant's clock
  sandbank trigger --list [--api URL] [--key sk_test_...]
                                             every event type with what it drives and the overrides it accepts
  sandbank check-webhooks URL [--secret whsec_...] [--timeout-ms N] [--seed N] [--junit FILE] [--json]
                             [--api URL] [--key sk_test_...]
                                             judge the webhook handler at URL with the conformance suite
                                             (signatures, replays, duplicates, order, slow work, retries,
                                             unknown types and fields, secret rotation) and print the report;
                                             uses the merchant's endpoint with that URL, or creates one
                                             (--secret: the secret the handler already verifies with);
                                             --junit writes the JUnit XML report; exit code 1 unless all pass
  sandbank test [--port N] -- COMMAND [ARGS...]
                                             start a Sandbank for a test run (in memory, a free port), run
                                             COMMAND with its url in SANDBANK_URL (node --test ...), stop it
                                             after and exit with COMMAND's exit code (sandbank test --help)

Options of listen:
  --forward-to URL      the local receiver each event is POSTed to (required)
  --key sk_test_...     the merchant's secret key (default: SANDBANK_SECRET_KEY)
  --api URL             the server (default: PUBLIC_URL, else http://localhost:4242)
  --events a,b          only these event types; "*" is all (the default), "collection.*" a prefix;
                        a type the server does not know is refused (GET /v1/event_types lists them)
  --secret whsec_...    sign with this secret instead of a fresh one (printed at start either way),
                        so a receiver keeps its configuration across runs
  --max-attempts N      attempts per event while the receiver is down or answers non-2xx, waiting
                        1s, 2s, 4s, 8s, 16s then 30s between them (default ${DEFAULT_MAX_ATTEMPTS}: about 2.5 minutes);
                        after the last one the event is reported as DROPPED and the next one is sent
  --since evt_...|TIME  first forward the events after this event id, or those whose created_at is
                        at or after this ISO 8601 time (2026-11-28T15:00:00Z, or a date), in id
                        order; then go live. The saved cursor is not read (it is saved from there on)
  --cursor-file PATH    where the cursor is saved (default: ${defaultCursorFile()})
  --no-resume           start live, ignoring the saved cursor (the cursor is saved from there on)
  -h, --help            this help

listen reconnects (1s doubling to 30s) when the server connection drops and then catches up from
GET /v1/events, so every event emitted meanwhile is forwarded, in id order, once.

listen saves a cursor as it forwards: each event delivered (or DROPPED) is recorded in the cursor
file, per server URL, key and forward URL (the key itself is not written). Started again with the
same three, it first forwards the events it missed while it was not running, saying how many, then
goes live: nothing it delivered is sent again. The first run starts live.

merchants create and keys roll use the same storage as the server (DATABASE_URL, or PGlite in
SANDBANK_DATA_DIR, default .sandbank/); listen, reset and trigger talk to the running server instead.
With PGlite the server must be stopped first (the data folder is locked); with the server running,
sign up over HTTP instead: curl -X POST localhost:4242/v1/merchants -H 'Content-Type: application/json' -d '{"name":"X"}'`;

function printKeys(label: string, keys: { secretKey: string; publicKey: string }): void {
  process.stdout.write(`${label}\n  Secret key  ${keys.secretKey}\n  Public key  ${keys.publicKey}\n`);
}

async function run(argv: string[]): Promise<number> {
  // Its own options, then the command to run, whose flags are not this CLI's.
  if (argv[0] === 'test') return (await import('./cli-test.ts')).runTest(argv.slice(1));
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      merchant: { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      api: { type: 'string' },
      key: { type: 'string' },
      secret: { type: 'string' },
      'max-attempts': { type: 'string' },
      since: { type: 'string' },
      'cursor-file': { type: 'string' },
      'no-resume': { type: 'boolean' },
      json: { type: 'boolean' },
      set: { type: 'string', multiple: true },
      list: { type: 'boolean' },
      status: { type: 'string' },
      'timeout-ms': { type: 'string' },
      seed: { type: 'string' },
      junit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (command === 'listen' && !values.help) return runListen(values);
  if (command === 'reset' && !values.help) return runReset(values);
  if (positionals[0] === 'snapshot' && !values.help) return runSnapshot(positionals.slice(1), values);
  if (positionals[0] === 'fixtures' && positionals[1] === 'apply' && positionals.length === 3 && !values.help)
    return runFixturesApply(positionals[2] ?? '', values);
  if (positionals[0] === 'trigger' && !values.help) return runTrigger(positionals.slice(1), values);
  if (positionals[0] === 'logs' && !values.help)
    return (await import('./cli-logs.ts')).runLogs(positionals.slice(1), values);
  if (positionals[0] === 'check-webhooks' && !values.help)
    return (await import('./cli-check.ts')).runCheckWebhooks(positionals.slice(1), values);
  if (values.help || (command !== 'merchants create' && command !== 'keys roll')) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadConfig(process.env, []);
  const database = await openDatabase(
    config.database.driver === 'postgres'
      ? { driver: 'postgres', url: config.database.url, maxConnections: 1 }
      : { driver: 'pglite', ...(config.database.dataDir ? { dataDir: config.database.dataDir } : {}) },
  );
  try {
    // The modules' registries (id prefixes among them) before anything is written.
    (await import('./modules/index.ts')).registerModules();
    if (command === 'merchants create') {
      if (!values.name) throw new Error('merchants create needs --name NAME');
      const created = await createMerchant(database.db, systemClock, { name: values.name });
      printKeys(`Created merchant ${created.merchant.name} (${created.merchant.id})`, created);
      return 0;
    }
    // A roll also ends the merchant's dashboard sessions: a reaction the app registers (reactions.ts).
    (await import('./modules/reactions.ts')).registerReactions();
    const merchantId = values.merchant ?? (await getDefaultMerchant(database.db))?.id;
    if (!merchantId)
      throw new Error('No default merchant yet: start the server once, or pass --merchant mch_...');
    printKeys(
      `New keys for ${merchantId} (the previous keys are revoked)`,
      await rollKeys(database.db, systemClock, merchantId),
    );
    return 0;
  } finally {
    await database.close();
  }
}

async function runListen(values: CliValues): Promise<number> {
  const forwardTo = values['forward-to'];
  const key = typeof values.key === 'string' ? values.key : process.env.SANDBANK_SECRET_KEY;
  if (typeof forwardTo !== 'string' || !key) {
    throw new Error(
      'listen needs --forward-to URL and --key sk_test_... (or SANDBANK_SECRET_KEY); see --help',
    );
  }
  if (values['cursor-file'] === '') throw new Error('--cursor-file needs a path.');
  if (values.since !== undefined && values['no-resume'])
    throw new Error(
      '--since and --no-resume contradict each other: --since alone already ignores the saved cursor.',
    );
  const maxAttempts = values['max-attempts'];
  if (maxAttempts !== undefined && !/^\d+$/.test(String(maxAttempts)))
    throw new Error('--max-attempts must be a whole number from 1 to 1000.');
  const config = loadConfig(process.env, []);
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await listen({
    api: typeof values.api === 'string' ? values.api : config.publicUrl,
    key,
    forwardTo,
    events:
      typeof values.events === 'string'
        ? values.events
            .split(',')
            .map((type) => type.trim())
            .filter(Boolean)
        : null,
    ...(typeof values.secret === 'string' ? { secret: values.secret } : {}),
    ...(maxAttempts !== undefined ? { maxAttempts: Number(maxAttempts) } : {}),
    ...(typeof values.since === 'string' ? { since: values.since } : {}),
    cursorFile: typeof values['cursor-file'] === 'string' ? values['cursor-file'] : defaultCursorFile(),
    resume: values['no-resume'] !== true,
    log: (line) => process.stdout.write(`${line}\n`),
    warn: (line) => process.stderr.write(`${line}\n`),
    signal: stop.signal,
  });
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`sandbank: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
