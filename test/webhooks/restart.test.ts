/**
 * Issue 23: "Killing the service between an alert and its delivery loses nothing: the delivery
 * happens after restart." The service runs as its own process (`npm start`'s entry) on a data
 * directory; the first run has its drain off (WEBHOOK_DRAIN_PERIOD_SECONDS=0), so the event raised
 * by a decision is in the outbox, written with the decision, when the process is SIGKILLed. The
 * second run, on the same directory with the drain on, delivers it to a receiver on 127.0.0.1
 * exactly once, verified with the standardwebhooks package. The second test kills it later: the
 * delivery is queued and its first attempt answered 500, so its retry waits in the in-memory queue
 * when the process dies; the restart queues the pending delivery again and it arrives, with the
 * same webhook-id.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, expect, it } from 'vitest';
import { freePort, spawnService, waitFor } from '../../bench/service-process.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'webhook-restart-'));
const receiver = await startReceiver({ '/queued': [500, 200] });
let service: ChildProcess | undefined;
afterAll(async () => {
  service?.kill('SIGKILL');
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(drainSeconds: string, env: Record<string, string> = {}) {
  const port = await freePort();
  service = spawnService({ port, dataDir, env: { WEBHOOK_DRAIN_PERIOD_SECONDS: drainSeconds, ...env } });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    'the service',
    async () => ((await fetch(`${base}/health`)).status === 200 ? true : undefined),
    60_000,
  );
  return async (path: string, key: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}

async function kill() {
  const exited = new Promise((done) => service?.once('exit', done));
  service?.kill('SIGKILL');
  await exited;
}

function key(role: string): string {
  const keys = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')).keys as {
    role: string;
    plan: string;
    api_key: string;
  }[];
  return keys.find((k) => k.role === role && k.plan === 'enterprise')?.api_key as string;
}

it('delivers after a SIGKILL the event raised before it, once', { timeout: 90_000 }, async () => {
  const call = await start('0');
  const created = await call('/webhooks', key('admin'), {
    url: receiver.url('/restart'),
    events: ['screen.decision_awaiting_approval'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const screen = await call('/screen', key('analyst'), { name: 'Restart Person Quillonby' });
  const decided = await call(`/screens/${screen.body.screen_id}/dispose`, key('analyst'), {
    disposition: 'needs_review',
    approval_requested: true,
  });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  await sleep(1_500);
  expect(receiver.received).toHaveLength(0);
  await kill();

  await start('1');
  const [got] = await waitFor(
    'the delivery after restart',
    async () => (receiver.received.length > 0 ? receiver.received : undefined),
    40_000,
  );
  const event = new Webhook(created.body.secret).verify(got.body, got.headers) as {
    type: string;
    data: { screen_id: string };
  };
  expect(event).toMatchObject({
    type: 'screen.decision_awaiting_approval',
    data: { screen_id: screen.body.screen_id },
  });
  // Three more drain passes: sent once.
  await sleep(3_000);
  expect(receiver.received).toHaveLength(1);
});

it('delivers after a SIGKILL a delivery that was queued and waiting for its retry', {
  timeout: 120_000,
}, async () => {
  await kill(); // the first test's service holds the data directory
  // A retry an hour away: only the restart's re-queue can deliver it within the test.
  const call = await start('1', { WEBHOOK_RETRY_DELAYS_SECONDS: '3600' });
  const created = await call('/webhooks', key('admin'), {
    url: receiver.url('/queued'),
    events: ['screen.decision_awaiting_approval'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const screen = await call('/screen', key('analyst'), { name: 'Queued Person Marrowfield' });
  await call(`/screens/${screen.body.screen_id}/dispose`, key('analyst'), {
    disposition: 'needs_review',
    approval_requested: true,
  });
  const queued = () => receiver.received.filter((got) => got.path === '/queued');
  await waitFor('the first attempt', async () => (queued().length > 0 ? true : undefined), 30_000);
  await kill();

  await start('1');
  await waitFor('the delivery after restart', async () => (queued().length > 1 ? true : undefined), 40_000);
  const [first, second] = queued();
  expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
  const event = new Webhook(created.body.secret).verify(second.body, second.headers) as {
    data: { screen_id: string };
  };
  expect(event.data.screen_id).toBe(screen.body.screen_id);
  await sleep(3_000);
  expect(queued()).toHaveLength(2);
});
