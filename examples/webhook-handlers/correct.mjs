// A webhook handler that does what a payment integration's handler must: it verifies every
// delivery, deduplicates by event id, acknowledges before it works, reads the object instead of
// trusting the order of arrival, and ignores what it does not know. `sandbank check-webhooks`
// passes it. Plain Node, no dependencies:
//
//   WEBHOOK_SECRET=whsec_... SANDBANK_SECRET_KEY=sk_test_... PORT=3000 node correct.mjs
//
// Its "work" for a collection's event is what an integration's fulfilment would be, written back
// to Sandbank so that a conformance run can see it: metadata.fulfilment = the collection's state.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

/** Standard Webhooks allows a timestamp at most 5 minutes away from the receiver's clock. */
const TOLERANCE_SECONDS = 5 * 60;
const HANDLED_TYPES = new Set(['collection.created', 'collection.succeeded']);

/** Whether the delivery is signed by `secret` (any of the header's v1 signatures) and recent. */
function verified(secret, headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * Starts the handler; answers its url and a close(). `api` and `key` are how it calls Sandbank,
 * `secret` the endpoint's signing secret.
 */
export async function startHandler({ api, key, secret, port = 0, host = '127.0.0.1', log = () => {} }) {
  if (!key?.startsWith('sk_test_')) throw new Error('the handler needs the secret key (SANDBANK_SECRET_KEY)');
  if (!secret?.startsWith('whsec_'))
    throw new Error("the handler needs the endpoint's secret (WEBHOOK_SECRET)");
  /** Events whose work succeeded, and events being worked on now. */
  const handled = new Set();
  const working = new Set();

  async function sandbank(method, path, body) {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`);
    return response.json();
  }

  async function work(event) {
    if (!HANDLED_TYPES.has(event.type)) return; // a type it does not know: ignored
    const id = event.data.object.id;
    // The object as it is now, whatever order its events arrived in.
    const collection = await sandbank('GET', `/v1/collections/${id}`);
    await sandbank('POST', `/v1/collections/${id}`, { metadata: { fulfilment: collection.state } });
  }

  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const answer = (status, json) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(json));
    };
    if (request.method !== 'POST') return answer(405, { error: 'POST only' });
    if (!verified(secret, request.headers, body)) return answer(400, { error: 'signature' });
    const id = request.headers['webhook-id'];
    if (handled.has(id) || working.has(id)) return answer(200, { received: true, duplicate: true });
    let event;
    try {
      event = JSON.parse(body);
    } catch {
      return answer(400, { error: 'body' });
    }
    working.add(id);
    answer(200, { received: true }); // acknowledge first, then work
    try {
      await work(event);
      handled.add(id); // only once the work succeeded: a retry of a failed event does it again
    } catch (error) {
      log(`event ${id} failed: ${error.message}; its retry will do the work`);
    } finally {
      working.delete(id);
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
    secret: process.env.WEBHOOK_SECRET,
    port: Number(process.env.PORT ?? 3000),
    log: (line) => console.log(line),
  });
  console.log(`correct handler listening at ${url}`);
}
