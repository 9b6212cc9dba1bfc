import { connect } from 'node:net';

/**
 * Clients that go away mid-request: each opens a raw TCP connection to the local server, sends a
 * request (whole, or its head and only part of the body it announced), and closes the socket
 * after a delay, before, while or after the server starts answering. Used by the connection-drop
 * test (test/api/client-drops.test.ts) and the last phase of `npm run fuzz` (scripts/fuzz.ts).
 */

export interface DropRequest {
  method: string;
  path: string;
  key: string;
  /** The body sent; undefined sends none. */
  body?: string;
}

/** Milliseconds from connecting to closing: at once, while the key is checked, while it streams. */
export const DROP_DELAYS_MS = [0, 1, 2, 5, 10, 20, 50, 80, 150] as const;

/** Every route that streams its answer, the exports, and a buffered one, with `key` and a batch id. */
export function dropRequests(keys: { admin: string; madeUp: string }, batchId: string): DropRequest[] {
  const subjects = JSON.stringify({
    subjects: Array.from({ length: 3 }, (_, i) => ({ name: `Dropped Quillonby ${i}` })),
  });
  const clients = JSON.stringify({
    subjects: Array.from({ length: 3 }, (_, i) => ({ name: `Dropped Client Quillonby ${i}` })),
  });
  const requests: DropRequest[] = [];
  for (const key of [keys.madeUp, keys.admin]) {
    requests.push(
      // The reproduction: an empty object, 2 bytes.
      { method: 'POST', path: '/batch/stream', key, body: '{}' },
      { method: 'POST', path: '/batch/stream', key, body: subjects },
      { method: 'POST', path: '/batch/clients/stream', key, body: clients },
      { method: 'GET', path: `/batch/${batchId}/events`, key },
      { method: 'GET', path: '/audit/export', key },
      { method: 'GET', path: '/audit/export?format=csv', key },
      { method: 'GET', path: '/screens/export', key },
      { method: 'POST', path: '/screen', key, body: JSON.stringify({ name: 'Dropped Screen Quillonby' }) },
      { method: 'GET', path: '/screens', key },
    );
  }
  return requests;
}

/**
 * Sends `request` and closes the connection `delayMs` later. With `partialBody` the head announces
 * the whole body but only half of it is sent, so the server is still reading when the client goes.
 * Resolves once the socket is closed; never rejects (a refused connection is reported as such).
 */
export function dropOne(
  baseUrl: string,
  request: DropRequest,
  delayMs: number,
  partialBody = false,
): Promise<'dropped' | 'refused'> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolveDrop) => {
    const socket = connect(Number(port), hostname);
    let outcome: 'dropped' | 'refused' = 'dropped';
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') outcome = 'refused';
    });
    socket.on('close', () => resolveDrop(outcome));
    socket.on('connect', () => {
      const body = Buffer.from(request.body ?? '');
      const head = [
        `${request.method} ${request.path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        `X-API-Key: ${request.key}`,
        ...(request.body === undefined
          ? []
          : ['Content-Type: application/json', `Content-Length: ${body.length}`]),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      socket.write(partialBody ? body.subarray(0, Math.floor(body.length / 2)) : body);
      setTimeout(() => socket.destroy(), delayMs);
    });
  });
}

/**
 * Every request at every delay, whole and with half its body, `rounds` times, a few connections
 * at a time. Returns how many connections were dropped and how many the server refused (it is gone).
 */
export async function dropConnections(
  baseUrl: string,
  requests: readonly DropRequest[],
  options: { rounds?: number; concurrency?: number } = {},
): Promise<{ dropped: number; refused: number }> {
  const jobs: (() => Promise<'dropped' | 'refused'>)[] = [];
  for (let round = 0; round < (options.rounds ?? 1); round++)
    for (const request of requests)
      for (const delay of DROP_DELAYS_MS)
        for (const partial of request.body === undefined ? [false] : [false, true])
          jobs.push(() => dropOne(baseUrl, request, delay, partial));
  const tally = { dropped: 0, refused: 0 };
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) tally[await jobs[next++]()] += 1;
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return tally;
}
