import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';

/**
 * Issue 21, failure 2: on a first start /health said `ok` while the lists were still compiling,
 * and a screen sent then hung 112 s and returned 500. Here the stack's watchlists are held back
 * (the test hook stands in for a slow compile) until the test lets them load.
 */

let stack: LocalStack;
let release: () => void;
const progress: string[] = [];
const previousWait = process.env.STARTUP_WAIT_SECONDS;

beforeAll(async () => {
  // A screen waits at most 1 s for the lists here (10 s by default), then gets its 503.
  process.env.STARTUP_WAIT_SECONDS = '1';
  const held = new Promise<void>((resolveHeld) => {
    release = resolveHeld;
  });
  stack = await startLocalStack({
    dataDir: null,
    returnWhenListening: true,
    beforeWatchlists: () => held,
    onProgress: (line) => progress.push(line),
  });
}, 60_000);
afterAll(async () => {
  release?.();
  await stack?.close();
  if (previousWait === undefined) delete process.env.STARTUP_WAIT_SECONDS;
  else process.env.STARTUP_WAIT_SECONDS = previousWait;
});

const analystKey = () =>
  stack.demoKeys.find((k) => k.tenant_id === 'tdemoenterprise' && k.role === 'analyst')!.api_key;

function post(path: string, body: unknown) {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': analystKey(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('a server whose watchlists are still loading', () => {
  it('says starting, with what is loading, and refuses screens with 503 and Retry-After; then ok', async () => {
    const starting = await fetch(`${stack.url}/health`);
    expect(starting.status).toBe(503);
    expect(starting.headers.get('retry-after')).toBe('5');
    expect(await starting.json()).toMatchObject({
      status: 'starting',
      version: '1.5.0',
      loading: expect.stringContaining('starting the local stores'),
      detail: expect.stringContaining('The service is starting'),
    });

    const began = Date.now();
    const screen = await post('/screen', { name: 'Impatient Quillonby' });
    // Bounded: the configured 1 s wait, not the lists' load.
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(screen.status).toBe(503);
    expect(screen.headers.get('retry-after')).toBe('5');
    expect((await screen.json()).detail).toMatch(/starting .*Retry in 5 s/);

    const client = await post('/clients', { name: 'Impatient Client Quillonby' });
    expect(client.status).toBe(503);
    expect(client.headers.get('retry-after')).toBe('5');

    // Nothing was stored or charged for the refused requests.
    const screens = await fetch(`${stack.url}/screens`, { headers: { 'x-api-key': analystKey() } });
    expect((await screens.json()).screens).toEqual([]);

    release();
    await stack.ready;
    const health = await fetch(`${stack.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'ok',
      version: '1.5.0',
      timestamp: expect.stringMatching(/\+00:00$/),
    });
    expect((await post('/screen', { name: 'Patient Quillonby' })).status).toBe(200);
    expect(progress.some((line) => /^indexed \d+ listed individuals from \d+ lists in/.test(line))).toBe(
      true,
    );
  }, 60_000);
});
