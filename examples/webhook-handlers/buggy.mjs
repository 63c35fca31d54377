// A webhook handler with the classic bugs, for `sandbank check-webhooks` to catch: it checks no
// signature, keeps no record of the events it handled, trusts the event's copy of the object and
// the order of arrival, does its work before it answers, and acts on any collection.* type.
// Each bug is marked BUG below. Plain Node, no dependencies:
//
//   SANDBANK_SECRET_KEY=sk_test_... PORT=3001 node buggy.mjs

import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startHandler({ api, key, port = 0, host = '127.0.0.1' }) {
  async function sandbank(method, path, body) {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`);
    return response.json();
  }

  const server = createServer(async (request, response) => {
    // BUG: no signature check — anyone who can reach the URL can fake a payment.
    const event = JSON.parse(await readBody(request));
    try {
      // BUG: any collection.* type, even one it cannot know.
      if (event.type.startsWith('collection.')) {
        const collection = event.data.object;
        await sandbank('GET', `/v1/collections/${collection.id}`);
        // BUG: no dedup by webhook-id, and the event's copy of the state is taken as the latest.
        // BUG: the work is awaited before answering: a slow call makes the delivery time out.
        await sandbank('POST', `/v1/collections/${collection.id}`, {
          metadata: { fulfilment: collection.state },
        });
      }
      response.writeHead(200).end('ok');
    } catch {
      response.writeHead(500).end('failed');
    }
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address();
  return {
    url: `http://${host}:${bound}/webhooks`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startHandler({
    api: process.env.SANDBANK_URL ?? 'http://localhost:4242',
    key: process.env.SANDBANK_SECRET_KEY,
    port: Number(process.env.PORT ?? 3001),
  });
  console.log(`buggy handler listening at ${url}`);
}
