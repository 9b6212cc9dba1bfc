import { beforeAll, describe, expect, it } from 'vitest';
import { isStrippedControl } from '../../lib/screening/text-input.ts';
import { demoKey, madeUpName, useLocalStack } from '../screening/http-client.ts';
import { readEvents, type SseEvent } from '../support/sse.ts';

/** Bad input of every shape gives a 4xx naming the problem, the same on every path that takes it. */
const local = useLocalStack();
let key: string;
beforeAll(() => {
  key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
});

/** POST /batch/stream: the refusal's status and detail, or the events of the whole stream. */
async function batch(body: unknown): Promise<{ status: number; detail?: string; events: SseEvent[] }> {
  const response = await fetch(`${local.stack.url}/batch/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: response.status, detail: (await response.json()).detail, events: [] };
  }
  return { status: response.status, events: await readEvents(response) };
}

describe('subject names: one rule set for POST /screen and the batch subjects', () => {
  it.each([
    ['zero-width spaces only', '\u200b\u200b'],
    ['punctuation only', '--..,,'],
    ['emoji only', '😀😀😀'],
    ['a title and one letter', 'Mr X'],
  ])('refuses a name with fewer than 2 readable letters (%s) with 400, uncharged', async (_, name) => {
    const before = (await local.api.get('/me', key)).body.usage.screens_used;

    const single = await local.api.post('/screen', key, { name });
    const inBatch = await batch({ subjects: [{ name: 'Hjordis Quillonby' }, { name }] });

    expect(single.status).toBe(400);
    expect(single.body.detail).toMatch(/^name: must contain at least 2 letters/);
    expect(inBatch.status).toBe(400);
    expect(inBatch.detail).toMatch(/^subjects\[1\]\.name: must contain at least 2 letters/);
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(before);
  });

  it('strips C0 and bidi control characters from every subject field before storing', async () => {
    const name = madeUpName();
    const { status, body } = await local.api.post('/screen', key, {
      name: `\u202e${name}\u0007\u200f`,
      alias: 'J.\u0000 Doe\u2066',
      location: 'Le\u001beds',
    });

    expect(status).toBe(200);
    expect(body.subject).toEqual({ name, alias: 'J. Doe', location: 'Leeds' });
    const stored = (await local.api.get(`/screens/${body.screen_id}`, key)).body;
    const codes = [...Object.values(stored.subject).join('')].map((char) => char.codePointAt(0)!);
    expect(codes.filter(isStrippedControl)).toEqual([]);
  });

  it('refuses text that is not well-formed Unicode (an unpaired surrogate) with 400', async () => {
    const single = await local.api.post('/screen', key, `{"name":"Hjordis \\ud800 Quillonby"}`);
    expect(single.status).toBe(400);
    expect(single.body.detail).toMatch(/^name: .*unpaired surrogate/);
  });

  it('screens a name outside the Basic Multilingual Plane the same way alone and in a batch', async () => {
    const name = `𝔄𝔩𝔦𝔠𝔢 ${madeUpName()}`;

    const single = await local.api.post('/screen', key, { name, force: true });
    const inBatch = await batch({ subjects: [{ name }] });

    expect(single.status).toBe(200);
    expect(inBatch.status).toBe(200);
    const complete = inBatch.events.find((e) => e.event === 'complete');
    expect(complete?.data).toMatchObject({ total: 1, completed: 1, failed: 0 });
  });
});
