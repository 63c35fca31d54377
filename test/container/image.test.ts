import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../processes/server-process.ts';
import { podman, podmanEnv, ROOT } from './podman.ts';

/**
 * The image built from the Containerfile, as a user runs it: one container with a named volume for
 * PGlite's data and pinned keys, on a loopback port. Its first request is the README's first curl.
 */
const image = process.env.SANDBANK_TEST_IMAGE ?? '';
const missing = process.env.SANDBANK_CONTAINERS_MISSING;
const SK = 'sk_test_container_0123456789';
const PK = 'pk_test_container_0123456789';
const suffix = `${process.pid}-${Date.now()}`;
const volume = `sandbank-test-data-${suffix}`;
const containers: string[] = [];

afterAll(() => {
  for (const name of containers)
    spawnSync('podman', ['rm', '-f', '-v', '-t', '0', name], { env: podmanEnv() });
  spawnSync('podman', ['volume', 'rm', '-f', volume], { env: podmanEnv() });
});

async function waitReady(base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${base}/readyz did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Starts the image on a free loopback port with the data volume and the pinned keys. */
async function run(name: string, extra: string[] = []): Promise<string> {
  const port = await freePort();
  containers.push(name);
  podman([
    'run',
    '-d',
    '--name',
    name,
    '-p',
    `127.0.0.1:${port}:4242`,
    '-v',
    `${volume}:/data`,
    '--memory',
    '512m',
    '-e',
    `SANDBANK_SECRET_KEY=${SK}`,
    '-e',
    `SANDBANK_PUBLIC_KEY=${PK}`,
    '-e',
    `PUBLIC_URL=http://localhost:${port}`,
    ...extra,
    image,
  ]);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(base);
  return base;
}

/** The first curl of the README's tour: its command with the continuation lines joined. */
function readmeFirstCurl(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## A five-minute tour'));
  const block = tour.slice(tour.indexOf('```sh\n') + 6);
  const lines = block.split('\n');
  const start = lines.findIndex((line) => line.startsWith('curl '));
  const command: string[] = [];
  for (let i = start; i < lines.length; i++) {
    command.push(lines[i] as string);
    if (!lines[i]?.endsWith('\\')) break;
  }
  return command.join('\n');
}

describe.skipIf(Boolean(missing))('the Sandbank image', () => {
  it('serves the README tour, turns healthy, stops cleanly on SIGTERM and keeps PGlite data on its volume', async () => {
    const [inspected] = JSON.parse(podman(['image', 'inspect', image])) as {
      Config: { User: string; Volumes: Record<string, unknown>; Env: string[] };
      Healthcheck?: { Test: string[] };
      Size: number;
    }[];
    const config = { ...inspected?.Config, Healthcheck: inspected?.Healthcheck };
    console.log(`image ${image}: ${Math.round((inspected?.Size ?? 0) / 1e6)} MB`);
    expect(config.User).toBe('node');
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/data']);
    expect(config.Healthcheck?.Test.join(' ')).toContain('/readyz');
    expect(config.Env).toContain('HOST=0.0.0.0');

    const first = `sandbank-test-${suffix}-1`;
    const base = await run(first);

    // The README's first curl, as a reader runs it against the container.
    const curl = readmeFirstCurl();
    expect(curl).toContain('/v1/collect');
    const tour = spawnSync('bash', ['-c', curl], {
      env: { ...process.env, BASE: base, SK },
      encoding: 'utf8',
    });
    expect(tour.status).toBe(0);
    const created = JSON.parse(tour.stdout) as {
      status: string;
      state: string;
      checkout_url: string;
      reference: string;
      id: string;
    };
    expect([created.status, created.state, created.reference]).toEqual(['success', 'pending', 'order-1001']);

    // The pages and their files come from the runtime stage's assets and external packages: the
    // landing page, Swagger UI and its script, GraphiQL, the dashboard's sign-in page and its
    // graphql-ws browser build, the collection's hosted checkout.
    const page = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { headers });
      return { path, status: res.status, text: await res.text() };
    };
    const docs = await page('/docs');
    const docsScript = /src="([^"]+\.js)"/.exec(docs.text)?.[1] ?? 'no script';
    const checkout = new URL(created.checkout_url);
    const pages = [
      await page('/'),
      docs,
      await page(docsScript.startsWith('/') ? docsScript : `/docs/${docsScript}`),
      await page('/graphql', { accept: 'text/html' }),
      await page('/dashboard/login'),
      await page('/dashboard/assets/graphql-ws.min.js'),
      await page(`${checkout.pathname}${checkout.search}`),
    ];
    expect(pages.map(({ path, status }) => `${path} ${status}`)).toEqual(
      pages.map(({ path }) => `${path} 200`),
    );
    // The shipped fixtures are in the image too.
    const fixtures = (await fetch(`${base}/v1/simulate/fixtures`, {
      headers: { authorization: `Bearer ${SK}` },
    }).then((res) => res.json())) as { data: { name: string }[] };
    expect(fixtures.data.map((fixture) => fixture.name).sort()).toEqual([
      'bank-rails',
      'decline-mix',
      'month-of-history',
      'returned-ach',
    ]);

    // The image's HEALTHCHECK, run by podman (no systemd timer here, so the test runs it).
    let health = '';
    for (let i = 0; i < 20 && health !== 'healthy'; i++) {
      spawnSync('podman', ['healthcheck', 'run', first], { env: podmanEnv() });
      health = podman(['inspect', first, '--format', '{{.State.Health.Status}}']);
      if (health !== 'healthy') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health).toBe('healthy');

    // SIGTERM: podman stop sends it and waits up to 10 s before SIGKILL; a clean stop exits 0 well before.
    const stopping = Date.now();
    podman(['stop', '-t', '10', first]);
    const stopMs = Date.now() - stopping;
    const exit = podman(['inspect', first, '--format', '{{.State.ExitCode}}']);
    expect(exit).toBe('0');
    expect(stopMs).toBeLessThan(8_000);
    expect(podman(['logs', first])).toContain('shutting down');

    // A new container on the same volume: the collection and the pinned keys are there.
    const second = await run(`sandbank-test-${suffix}-2`);
    const again = await fetch(`${second}/v1/collections/order-1001`, {
      headers: { Authorization: `Bearer ${SK}` },
    });
    expect(again.status).toBe(200);
    const read = (await again.json()) as { id: string; state: string; amount: number };
    expect([read.id, read.state]).toEqual([created.id, 'pending']);
    // The first start made the default merchant; the second found it on the volume.
    expect(podman(['logs', first])).toMatch(/Merchant .* — created now/);
    expect(podman(['logs', `sandbank-test-${suffix}-2`])).toMatch(
      /Merchant {3}Sandbank Demo Store \(mch_\w+\)\n/,
    );
  });
});
