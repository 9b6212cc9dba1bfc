/**
 * `npm run bench:webhooks`: the service in its own process (npm start's entry, bench/service-process.ts)
 * and a receiver on 127.0.0.1. Reports (1) the time from a decision that raises an event (a
 * disposition awaiting approval, answered 200) to its verified delivery, p50/p95 over 20 events, and
 * (2) the throughput of 1,000 such decisions, each on its own screen (so over 1,000 outbox items),
 * from the first decision to the last verified delivery, with p50/p95 decision to delivery.
 * Only loopback traffic. EVENTS=<n> changes the throughput count.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startReceiver } from '../test/support/webhook-receiver.ts';
import { freePort, spawnService, waitFor } from './service-process.ts';

const EVENTS = Number(process.env.EVENTS ?? 1000);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const service = spawnService({ port, dataDir });
const receiver = await startReceiver();
const arrivals = new Map<string, number>();
const started = Date.now();
try {
  await waitFor('the service', async () =>
    (await fetch(`${base}/health`)).status === 200 ? true : undefined,
  );
  process.stdout.write(`service ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  const keys = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')).keys as {
    role: string;
    plan: string;
    api_key: string;
  }[];
  const admin = keys.find((k) => k.role === 'admin' && k.plan === 'enterprise')?.api_key as string;
  const analyst = keys.find((k) => k.role === 'analyst' && k.plan === 'enterprise')?.api_key as string;
  const call = async (path: string, key: string, body?: unknown) =>
    (
      await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json();
  const created = await call('/webhooks', admin, {
    url: receiver.url('/bench'),
    events: ['screen.decision_awaiting_approval'],
  });
  const webhook = new Webhook(created.secret);
  const seen = () => {
    for (const r of receiver.received.splice(0)) {
      const event = webhook.verify(r.body, r.headers) as {
        event_id: string;
        type: string;
        data: { screen_id?: string };
      };
      arrivals.set(event.data.screen_id ?? event.event_id, Date.now());
    }
  };
  // 1. Decision to delivery.
  const lags: number[] = [];
  for (let i = 0; i < 20; i++) {
    const screen = await call('/screen', analyst, { name: `Benchmark Person ${i} Quillonby` });
    const t0 = Date.now();
    await call(`/screens/${screen.screen_id}/dispose`, analyst, {
      disposition: 'needs_review',
      approval_requested: true,
    });
    await waitFor(
      'a delivery',
      async () => {
        seen();
        return arrivals.get(screen.screen_id);
      },
      60_000,
    );
    lags.push((arrivals.get(screen.screen_id) as number) - t0);
  }
  lags.sort((a, b) => a - b);
  process.stdout.write(
    `event to delivery (20 events): p50 ${lags[9]} ms, p95 ${lags[18]} ms, max ${lags[19]} ms\n`,
  );
  // 2. Throughput: EVENTS decisions awaiting approval, each on its own screen (its own outbox item).
  const screens: string[] = [];
  for (let i = 0; i < EVENTS; i += 20)
    screens.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, EVENTS - i) }, async (_, j) =>
          String(
            (
              await call('/screen', analyst, { name: `Throughput Person ${i + j} Quillonby` })
            ).screen_id,
          ),
        ),
      )),
    );
  arrivals.clear();
  const decided = new Map<string, number>();
  const t1 = Date.now();
  for (let i = 0; i < EVENTS; i += 20)
    await Promise.all(
      screens.slice(i, i + 20).map(async (screenId) => {
        await call(`/screens/${screenId}/dispose`, analyst, {
          disposition: 'needs_review',
          approval_requested: true,
        });
        decided.set(screenId, Date.now());
        seen();
      }),
    );
  const requests = Date.now() - t1;
  await waitFor(
    'every delivery',
    async () => {
      seen();
      return screens.every((id) => arrivals.has(id)) ? true : undefined;
    },
    600_000,
  );
  const total = Math.max(...screens.map((id) => arrivals.get(id) as number)) - t1;
  const each = screens
    .map((id) => Math.max(0, (arrivals.get(id) as number) - (decided.get(id) as number)))
    .sort((x, y) => x - y);
  const at = (q: number) => each[Math.min(each.length - 1, Math.floor(q * each.length))];
  process.stdout.write(
    `${EVENTS} events on ${EVENTS} items: requests ${requests} ms, all delivered and verified after ${total} ms (${((EVENTS / total) * 1000).toFixed(0)} events/s); decision to delivery p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${each.at(-1)} ms\n`,
  );
} finally {
  service.kill('SIGTERM');
  await receiver.close();
  await new Promise((done) => setTimeout(done, 1000));
  rmSync(dataDir, { recursive: true, force: true });
}
