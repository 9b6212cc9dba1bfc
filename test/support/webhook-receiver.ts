import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: the Standard Webhooks headers and the raw body. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How a path answers: a status per request in turn (the last one repeats), or `hang` (never answers). */
export type Behaviour = number[] | 'hang';

/** The loopback address a receiver listens on; tests and benchmarks never listen elsewhere. */
export type LoopbackAddress = '127.0.0.1' | '::1';

/**
 * A real HTTP receiver on 127.0.0.1 or ::1 (never another address): each path answers as told and
 * records what it got, for the webhook tests and `npm run bench:webhooks`.
 */
export async function startReceiver(
  behaviours: Record<string, Behaviour> = {},
  address: LoopbackAddress = '127.0.0.1',
) {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
      );
      received.push({ path, headers, body });
      const behaviour = behaviours[path] ?? [200];
      if (behaviour === 'hang') return;
      const n = counts.get(path) ?? 0;
      counts.set(path, n + 1);
      res.writeHead(behaviour[Math.min(n, behaviour.length - 1)], { 'content-type': 'text/plain' });
      res.end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  const literal = address === '::1' ? '[::1]' : address;
  return {
    port,
    url: (path: string) => `http://${literal}:${port}${path}`,
    received,
    on: (path: string) => received.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
