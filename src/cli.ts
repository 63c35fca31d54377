import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { systemClock } from './kernel/clock.ts';
import { createMerchant, getDefaultMerchant, rollKeys } from './modules/merchants/merchants.service.ts';

const USAGE = `Usage:
  sandbank merchants create --name NAME     create a merchant and print its keys
  sandbank keys roll [--merchant mch_...]    issue a new key pair (default merchant if omitted), revoking the old keys

Uses the same storage as the server (DATABASE_URL, or PGlite in SANDBANK_DATA_DIR, default .sandbank/).
With PGlite the server must be stopped first (the data folder is locked); with the server running,
sign up over HTTP instead: curl -X POST localhost:4242/v1/merchants -H 'Content-Type: application/json' -d '{"name":"X"}'`;

function printKeys(label: string, keys: { secretKey: string; publicKey: string }): void {
  process.stdout.write(`${label}\n  Secret key  ${keys.secretKey}\n  Public key  ${keys.publicKey}\n`);
}

async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      merchant: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
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
    if (command === 'merchants create') {
      if (!values.name) throw new Error('merchants create needs --name NAME');
      const created = await createMerchant(database.db, systemClock, { name: values.name });
      printKeys(`Created merchant ${created.merchant.name} (${created.merchant.id})`, created);
      return 0;
    }
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

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`sandbank: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
