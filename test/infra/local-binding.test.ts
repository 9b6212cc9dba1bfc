import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();

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
});
