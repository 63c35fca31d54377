/**
 * The testing API measured from a process of its own, as a user's test process runs it (the built
 * package's dist/testing.js), by bench/testing-api.bench.ts:
 *
 *   node bench/testing-api-child.mjs start            import, startSandbank(), first create, close()
 *   node bench/testing-api-child.mjs merchants N      N merchants (and N webhook receivers) one after another
 *   node bench/testing-api-child.mjs restore OBJECTS ROUNDS   a snapshot of OBJECTS collections restored ROUNDS times
 *
 * Each prints one JSON line. BENCH_DATABASE_URL runs the server on that Postgres database instead
 * of PGlite in memory.
 */
import { performance } from 'node:perf_hooks';

const [mode, first, second] = process.argv.slice(2);
const databaseUrl = process.env.BENCH_DATABASE_URL;
const options = databaseUrl ? { databaseUrl } : {};

async function api(base, key, method, path, body) {
  const response = await fetch(`${base}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const p95 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
};

async function start() {
  const t0 = performance.now();
  const { startSandbank } = await import('../dist/testing.js');
  const imported = performance.now();
  const sandbank = await startSandbank(options);
  const started = performance.now();
  await api(sandbank.url, sandbank.secretKey, 'POST', '/collect', { amount: 10, currency: 'USD' });
  const created = performance.now();
  await sandbank.close();
  const closed = performance.now();
  return {
    // From the process's own start (node's start-up included) to the first create answered.
    processToFirstCreateMs: created,
    importMs: imported - t0,
    startMs: started - imported,
    firstCreateMs: created - started,
    closeMs: closed - created,
  };
}

async function merchants(count) {
  const { startSandbank } = await import('../dist/testing.js');
  const sandbank = await startSandbank(options);
  const signUps = [];
  const withReceiver = [];
  try {
    for (let i = 0; i < 5; i++) await sandbank.newMerchant(`warm-up ${i}`);
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const merchant = await sandbank.newMerchant(`File ${i}`);
      const t1 = performance.now();
      const receiver = await merchant.webhookReceiver();
      const t2 = performance.now();
      signUps.push(t1 - t0);
      withReceiver.push(t2 - t0);
      await receiver.close();
    }
  } finally {
    await sandbank.close();
  }
  return {
    merchantMedianMs: median(signUps),
    merchantP95Ms: p95(signUps),
    merchantWithReceiverMedianMs: median(withReceiver),
    merchantWithReceiverP95Ms: p95(withReceiver),
  };
}

async function restore(objects, rounds) {
  const { startSandbank } = await import('../dist/testing.js');
  const sandbank = await startSandbank(options);
  try {
    const shop = await sandbank.newMerchant('Seeded shop');
    const key = shop.secretKey;
    // The seed: `objects` collections (each with its event and expiry job), ten at a time.
    for (let i = 0; i < objects; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, objects - i) }, (_, j) =>
          api(sandbank.url, key, 'POST', '/collect', {
            amount: 10 + j,
            currency: 'USD',
            reference: `seed-${i + j}`,
          }),
        ),
      );
    }
    const t0 = performance.now();
    await api(sandbank.url, key, 'POST', '/sandbox/snapshots', { name: 'seeded' });
    const saveMs = performance.now() - t0;
    const times = [];
    for (let round = 0; round < rounds; round++) {
      // What a test does between restores: a few objects of its own.
      for (let k = 0; k < 5; k++)
        await api(sandbank.url, key, 'POST', '/collect', { amount: 1, currency: 'USD' });
      const started = performance.now();
      await api(sandbank.url, key, 'POST', '/sandbox/snapshots/seeded/restore');
      times.push(performance.now() - started);
    }
    const list = await api(sandbank.url, key, 'GET', '/collections?limit=1');
    if (!Array.isArray(list.data)) throw new Error('the restored merchant does not list its collections');
    const reset = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      await api(sandbank.url, key, 'POST', '/simulate/reset');
      reset.push(performance.now() - started);
      await api(sandbank.url, key, 'POST', '/sandbox/snapshots/seeded/restore');
    }
    return {
      objects,
      saveMs,
      restoreMedianMs: median(times),
      restoreP95Ms: p95(times),
      resetMedianMs: median(reset),
    };
  } finally {
    await sandbank.close();
  }
}

const work =
  mode === 'start'
    ? start()
    : mode === 'merchants'
      ? merchants(Number(first ?? 50))
      : mode === 'restore'
        ? restore(Number(first ?? 1000), Number(second ?? 10))
        : Promise.reject(new Error(`unknown mode ${mode}`));
work.then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
