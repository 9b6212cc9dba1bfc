import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DROP_DELAYS_MS, dropConnections, dropRequests } from '../support/connection-drops.ts';

/**
 * Issue 21, failure 1: a client that went away while a stream route was still checking its key
 * killed `npm start` (an 'error' on the local response stream that nothing listened to). The
 * service runs here as `npm start` does, in its own process, so a crash shows as that process
 * exiting rather than as a failure inside the test's own process.
 */

const repoRoot = resolve(import.meta.dirname, '../..');
let dataDir: string;
let server: ChildProcess;
let url: string;
let exited: { code: number | null; signal: string | null } | undefined;
let stderr = '';

/** The environment a fresh `npm start` gets: none of the stores another test of this worker started. */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'error' };
  for (const name of [
    'TABLE_NAME',
    'DYNAMODB_ENDPOINT',
    'SQS_ENDPOINT',
    'BATCH_QUEUE_URL',
    'WATCHLIST_STORE_DIR',
    'WATCHLIST_BUCKET',
  ])
    delete env[name];
  return env;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'client-drops-'));
  server = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: repoRoot,
    env: serverEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.on('exit', (code, signal) => {
    exited = { code, signal };
  });
  server.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  url = await new Promise<string>((resolveUrl, reject) => {
    let stdout = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // The line npm start prints once the lists are loaded (before it, /health says starting).
      const ready = /listening on (http:\/\/[\d.]+:\d+), ready in/.exec(stdout);
      if (ready) resolveUrl(ready[1]);
    });
    server.on('exit', () => reject(new Error(`npm start exited before it listened: ${stderr}`)));
  });
}, 120_000);

afterAll(async () => {
  if (server && !exited) {
    const gone = new Promise((resolveExit) => server.once('exit', resolveExit));
    server.kill('SIGTERM');
    await gone;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const demoKeys = () =>
  (JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')) as { keys: DemoKeyLine[] }).keys;
interface DemoKeyLine {
  tenant_id: string;
  role: string;
  api_key: string;
}

describe('clients that go away mid-request (npm start in its own process)', () => {
  it('end only their own request: the server answers /health and screens afterwards', async () => {
    const admin = demoKeys().find((k) => k.tenant_id === 'tdemoenterprise' && k.role === 'admin')!.api_key;
    // A finished batch, so /batch/{id}/events replays a real stream.
    const batch = await fetch(`${url}/batch/stream`, {
      method: 'POST',
      headers: { 'x-api-key': admin, 'content-type': 'application/json' },
      body: JSON.stringify({ subjects: [{ name: 'Reattached Quillonby' }] }),
    });
    const batchId = /"batch_id":"([^"]+)"/.exec(await batch.text())?.[1];
    expect(batchId).toBeDefined();

    const requests = dropRequests({ admin, madeUp: 'isk_tmadeup.uabsent.Zm9vYmFyYmF6cXV4cXV1eA' }, batchId!);
    const tally = await dropConnections(url, requests, { rounds: 2 });

    // The server's own last words, if it died.
    expect(exited, stderr).toBeUndefined();
    expect(tally.refused).toBe(0);
    expect(tally.dropped).toBeGreaterThanOrEqual(2 * requests.length * DROP_DELAYS_MS.length);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const screen = await fetch(`${url}/screen`, {
      method: 'POST',
      headers: { 'x-api-key': admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'After The Drops Quillonby' }),
    });
    expect(screen.status).toBe(200);
  }, 240_000);
});
