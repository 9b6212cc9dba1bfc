import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeConnector } from '../../lib/webhooks/connector.ts';

/**
 * The connector posts to the address the guard checked, whatever the URL's host is. A tenant's
 * endpoint has a host name; the checked address stands in for its resolution (here 127.0.0.1, as
 * a test resolver would map it), and the name still goes in the Host header.
 */
let server: Server;
let port: number;
const received: { host: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ host: req.headers.host, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('posting to a checked address', () => {
  it("reaches an endpoint named by a host name, at the checked address, with the name as Host (Node's lookup asks for all addresses)", async () => {
    const url = new URL(`http://hooks.bank.example:${port}/webhooks`);

    const result = await nodeConnector(
      { url, address: { address: '127.0.0.1', family: 4 } },
      { headers: { 'webhook-id': 'msg_1' }, body: '{"ok":true}', timeoutMs: 5_000 },
    );

    expect(result).toEqual({ status: 204, body: '' });
    expect(received.at(-1)).toEqual({ host: `hooks.bank.example:${port}`, body: '{"ok":true}' });
  });

  it('reaches an endpoint named by its IP address as before', async () => {
    const url = new URL(`http://127.0.0.1:${port}/webhooks`);

    const result = await nodeConnector(
      { url, address: { address: '127.0.0.1', family: 4 } },
      { headers: {}, body: '{}', timeoutMs: 5_000 },
    );

    expect(result.status).toBe(204);
  });
});
