import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { isStrippedControl } from '../../lib/common/text-input.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { chargeScreens, getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalServer } from '../support/api-client.ts';
import { checkReceived } from '../support/contract-setup.ts';
import { readEvents, type SseEvent } from '../support/sse.ts';

/** Bad input of every shape gives a 4xx naming the problem, the same on every path that takes it. */
const local = useLocalServer();
let key: string;
beforeAll(() => {
  key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
});

/** POST /batch/stream: the refusal's status and detail, or the events of the whole stream. */
async function batch(
  body: unknown,
  apiKey = key,
): Promise<{ status: number; detail?: string; events: SseEvent[] }> {
  const response = await fetch(`${local.stack.url}/batch/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
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

/** A raw HTTP/1.1 request, so the request target reaches the server exactly as written. */
function rawRequest(
  method: string,
  target: string,
  body?: Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const { port } = new URL(local.stack.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        headers: { 'x-api-key': key, ...(body ? { 'content-length': body.length } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const received = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) received.set(name, String(value));
          }
          checkReceived(method, `${local.stack.url}${target}`, res.statusCode ?? 0, received, text);
          resolve({ status: res.statusCode ?? 0, text, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('requests the service cannot route or read: a 4xx with a detail, never a 500', () => {
  it('answers 404 for screen ids of any length that are not screen ids', async () => {
    const long = `SCR-20250101-${'9'.repeat(1100)}`;
    for (const [method, path] of [
      ['GET', `/screens/${long}`],
      ['GET', `/screens/${long}/history`],
      ['POST', `/screens/${long}/dispose`],
      ['DELETE', `/screens/${long}`],
    ]) {
      const response = await rawRequest(method, path, Buffer.from('{"disposition":"cleared"}'));
      expect(response.status, `${method} ${path.slice(0, 40)}`).toBe(404);
      expect(JSON.parse(response.text).detail).toMatch(/not found/);
    }
  });

  it('answers 404 for request targets starting with // and never serves them as another path', async () => {
    for (const target of ['//screens', '//localhost/me', '//127.0.0.1/health', '//[', '//', '//%zz']) {
      const response = await rawRequest('GET', target);
      expect(response.status, target).toBe(404);
      expect(JSON.parse(response.text).detail).toMatch(/^No route GET /);
    }
  });

  it('refuses a body that is not valid UTF-8 with 400, on buffered and streamed routes alike', async () => {
    const invalid = Buffer.concat([
      Buffer.from('{"name":"Hjordis '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    for (const path of ['/screen', '/batch/stream']) {
      const response = await rawRequest('POST', path, invalid, { 'content-type': 'application/json' });
      expect(response.status, path).toBe(400);
      expect(JSON.parse(response.text).detail).toBe('Request body is not valid UTF-8');
    }
  });

  it('treats a trailing slash as another path, the same way as API Gateway: 404', async () => {
    expect((await rawRequest('GET', '/me/')).status).toBe(404);
    const batchSlash = await rawRequest(
      'POST',
      '/batch/stream/',
      Buffer.from('{"subjects":[{"name":"Jo Quillonby"}]}'),
    );
    expect(batchSlash.status).toBe(404);
    expect(batchSlash.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers HEAD /health with 200 and no body', async () => {
    const response = await rawRequest('HEAD', '/health');
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });
});

describe('a batch at the quota limit', () => {
  it('is served when the rescreen window answers every subject (nothing charged); one needing fresh screens is 429 naming its size', async () => {
    const { table } = getServices();
    const growth = await createTenant(table, { name: 'Window Bank', plan: 'growth' });
    const tenantId = growth.tenant.tenant_id;
    const adminKey = growth.admin.api_key;
    const subjects = [{ name: madeUpName() }, { name: madeUpName(), nationality: 'Norway' }];
    const earlier: string[] = [];
    for (const subject of subjects)
      earlier.push((await local.api.post('/screen', adminKey, subject)).body.screen_id);
    await chargeScreens(table, tenantId, 4998, 5000);

    const cachedOnly = await batch({ subjects }, adminKey);
    const mixed = await batch({ subjects: [...subjects, { name: madeUpName() }] }, adminKey);

    expect(cachedOnly.status).toBe(200);
    const progress = cachedOnly.events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress.map((p) => [p.index, p.screen_id, p.skipped]).sort()).toEqual([
      [0, earlier[0], true],
      [1, earlier[1], true],
    ]);
    expect(cachedOnly.events.at(-1)).toMatchObject({ event: 'complete', data: { completed: 2, failed: 0 } });
    expect(mixed.status).toBe(429);
    expect(mixed.detail).toBe(
      'Monthly screen limit reached: 5000/5000 screens used this month; this batch of 3 subjects needs 3 and 0 remain. Upgrade your plan to screen more.',
    );
    expect(await getMonthlyUsage(table, tenantId)).toBe(5000);
  });
});
