/**
 * `npm run webhook:listen -- <secret> [port]`: a local receiver on 127.0.0.1 that verifies each
 * delivery with the `standardwebhooks` package and prints it. Register it (with `npm start`
 * running, which allows http://127.0.0.1 receivers):
 *   curl -s localhost:3000/webhooks -H "X-API-Key: $KEY" -d '{"url":"http://127.0.0.1:4000/","events":["monitoring.alert"]}'
 * then run this with the `secret` from that answer.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const [secret, portText = '4000'] = process.argv.slice(2);
if (!secret?.startsWith('whsec_')) {
  process.stderr.write('usage: npm run webhook:listen -- <whsec_… secret> [port]\n');
  process.exit(2);
}
const webhook = new Webhook(secret);
createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => {
    try {
      const event = webhook.verify(body, req.headers as Record<string, string>) as {
        type: string;
        sequence: number;
      };
      process.stdout.write(
        `verified ${req.headers['webhook-id']} #${event.sequence} ${event.type}\n${JSON.stringify(event, null, 2)}\n`,
      );
      res.writeHead(204).end();
    } catch (error) {
      process.stdout.write(`REFUSED ${req.headers['webhook-id']}: ${(error as Error).message}\n`);
      res.writeHead(400).end();
    }
  });
}).listen(Number(portText), '127.0.0.1', () =>
  process.stdout.write(`listening on http://127.0.0.1:${portText}/\n`),
);
