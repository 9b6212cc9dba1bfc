import { Agent, get as httpGet } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useLocalServer } from '../support/api-client.ts';

const local = useLocalServer();

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('local stand-ins', () => {
  // Linux routes all of 127.0.0.0/8 to the loopback interface: a server listening on every
  // interface (0.0.0.0) accepts 127.0.0.2, one bound to 127.0.0.1 alone refuses it. So this
  // tells "reachable from the network" from "loopback only" without needing a second host.
  it('listen on 127.0.0.1 only: the API, the queue emulator and the table store', async () => {
    const endpoints = {
      api: local.stack.url,
      queue: local.stack.batchQueue.endpoint,
      table: process.env.DYNAMODB_ENDPOINT!,
    };
    for (const [name, url] of Object.entries(endpoints)) {
      const port = Number(new URL(url).port);
      expect({ name, loopback: await accepts('127.0.0.1', port) }).toEqual({ name, loopback: true });
      expect({ name, otherAddress: await accepts('127.0.0.2', port) }).toEqual({ name, otherAddress: false });
    }
  });

  // A client that pauses between requests reuses its idle connection; a server that closes it
  // meanwhile resets the next request (ECONNRESET, as npm run bench:alert-lag's polling saw).
  it('keep an idle connection open past Node’s 5 s default, and say how long in Keep-Alive', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const health = () =>
      new Promise<{ keepAlive: string | undefined; socket: Socket }>((resolve, reject) => {
        const request = httpGet(`${local.stack.url}/health`, { agent }, (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ keepAlive: String(response.headers['keep-alive']), socket: request.socket as Socket }),
          );
        });
        request.on('error', reject);
      });
    try {
      const first = await health();
      let closed = false;
      first.socket.once('close', () => {
        closed = true;
      });

      await sleep(6_000);
      const second = await health();

      expect(first.keepAlive).toBe('timeout=65');
      expect(closed).toBe(false);
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
  });
});
