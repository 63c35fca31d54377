// The stack test's webhook receiver, a container on the stack's private network: it answers every
// delivery 200 and lists what it received (GET /deliveries: the webhook-id header and body of each).
import { createServer } from 'node:http';

const deliveries = [];
createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/deliveries') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(deliveries));
    return;
  }
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    deliveries.push({ id: req.headers['webhook-id'], body });
    res.writeHead(200);
    res.end('ok');
  });
}).listen(8080, '0.0.0.0');
process.on('SIGTERM', () => process.exit(0));
