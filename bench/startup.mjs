#!/usr/bin/env node
/**
 * Start-up time of the built server: spawn `node <dist>/main.js --memory` on a free loopback port,
 * then POST /v1/collect until one answers 2xx, and print the time from spawn to that answer.
 *
 *   npm run build && node bench/startup.mjs [runs=7] [dist=dist] [extra server args…]
 *
 * Environment is passed through (PGLITE_WORKER=0 runs PGlite on the main thread).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const runs = Number(process.argv[2] ?? 7);
const dist = resolve(process.argv[3] ?? 'dist');
const extra = process.argv.slice(4);
const KEY = 'sk_test_startupbench0000000000000000';

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function once() {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(dist, 'main.js'), '--memory', '--port', String(port), ...extra],
    {
      env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', SANDBANK_SECRET_KEY: KEY },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/v1/collect`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 12.5, currency: 'USD' }),
        });
        await response.arrayBuffer();
        if (response.ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const times = [];
for (let i = 0; i < runs; i++) times.push(await once());
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(
  `${dist}${process.env.PGLITE_WORKER ? ` PGLITE_WORKER=${process.env.PGLITE_WORKER}` : ''}: spawn → first 2xx POST /v1/collect, ` +
    `median ${median.toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times.at(-1).toFixed(0)}, ${runs} runs)`,
);
