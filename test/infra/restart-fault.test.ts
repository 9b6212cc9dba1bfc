import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/dynamo.ts';

/**
 * The fault test: `npm start` killed (SIGKILL, nothing flushed) while two batches are being
 * screened, then started again on the same data directory. Every subject must end screened or
 * refunded, none charged twice, and both batches' streams must complete when re-attached.
 */
const repoRoot = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'screening-restart-'));
const SUBJECTS = 150;
let server: ChildProcess | undefined;

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number): Promise<string> {
  server = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', VITEST: undefined },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    try {
      if ((await fetch(`${url}/health`)).ok) return url;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('npm start did not answer /health within 60 s');
}

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Feeds a stream into `events` until it ends or breaks (the server was killed). */
async function collect(response: Response, events: SseEvent[]): Promise<void> {
  const parser = createParser({
    onEvent: (message) => events.push({ event: message.event ?? 'message', data: JSON.parse(message.data) }),
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body!)
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  } catch {
    // cut off by the kill
  }
}

const people = (tag: string) =>
  Array.from({ length: SUBJECTS }, (_, i) => ({ name: `Restart ${tag} Person ${i}`, location: 'Galway' }));

describe('npm start killed during two batches and restarted', () => {
  it('screens or refunds every subject, charges none twice, and both streams complete', async () => {
    const port = await freePort();
    let url = await start(port);
    const keys = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')).keys as {
      api_key: string;
      plan: string;
      role: string;
    }[];
    const key = keys.find((k) => k.plan === 'enterprise' && k.role === 'analyst')!.api_key;
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const usage = async () =>
      (await (await fetch(`${url}/me`, { headers })).json()).usage.screens_used as number;
    const usageBefore = await usage();

    const firstRun: SseEvent[][] = [[], []];
    const streams = ['a', 'b'].map(async (tag, i) => {
      const response = await fetch(`${url}/batch/stream`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ subjects: people(tag) }),
      });
      expect(response.status).toBe(200);
      await collect(response, firstRun[i]);
    });
    // Both batches charged and queued (their streams started), then killed mid-screening.
    for (const deadline = Date.now() + 30_000; firstRun.some((events) => events.length === 0); ) {
      if (Date.now() > deadline) throw new Error('the batches did not start');
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    server!.kill('SIGKILL');
    await new Promise((r) => server!.once('exit', r));
    await Promise.all(streams);
    const batchIds = firstRun.map((events) => events[0]?.data.batch_id as string);
    expect(batchIds.every((id) => typeof id === 'string')).toBe(true);
    // The kill came mid-batch: neither stream had finished.
    expect(firstRun.every((events) => events.at(-1)?.event !== 'complete')).toBe(true);

    url = await start(port);
    const reattached = await Promise.all(
      batchIds.map(async (batchId) => {
        const events: SseEvent[] = [];
        const response = await fetch(`${url}/batch/${batchId}/events`, { headers });
        expect(response.status).toBe(200);
        await collect(response, events);
        return events;
      }),
    );

    const screenIds = new Set<string>();
    for (const events of reattached) {
      const complete = events.at(-1)!;
      expect(complete.event).toBe('complete');
      expect(Number(complete.data.completed) + Number(complete.data.failed)).toBe(SUBJECTS);
      const indexes = events
        .filter((e) => e.event === 'progress' || e.event === 'error')
        .map((e) => e.data.index);
      expect(new Set(indexes).size).toBe(SUBJECTS);
      for (const e of events.filter((e) => e.event === 'progress')) screenIds.add(String(e.data.screen_id));
    }
    // Every subject is distinct: each screen charged once, every other subject refunded.
    expect(await usage()).toBe(usageBefore + screenIds.size);
    let stored = 0;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = await (
        await fetch(`${url}/screens?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { headers })
      ).json();
      stored += page.screens.filter((s: { subject: { name: string } }) =>
        s.subject.name.startsWith('Restart '),
      ).length;
      cursor = page.next_cursor;
    }
    expect(stored).toBe(screenIds.size);
  }, 120_000);
});
