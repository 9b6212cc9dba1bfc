import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { getServices } from '../../lib/runtime/services.ts';
import type { PlanId } from '../../lib/tenancy/plans.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName } from '../support/api-client.ts';
import { HELD } from '../support/held-batch-worker.ts';

/**
 * Fair use between tenants (lib/tenancy/limits.ts): a tenant over its plan's request rate or
 * open-stream limit gets a 429 with Retry-After and a detail unlike the monthly quota's, and
 * another tenant meanwhile is served as usual.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ dataDir: null, batchWorkerEntry: 'test/support/held-batch-worker.ts' });
}, 60_000);
afterAll(async () => stack.close());

async function tenantOn(plan: PlanId) {
  const { admin } = await createTenant(getServices().table, { name: `Fair use ${plan}`, plan });
  return admin.api_key;
}

const me = (key: string) => fetch(`${stack.url}/me`, { headers: { 'x-api-key': key } });

/** Opens a batch stream and reads up to its `start` event; the caller closes it (abort). */
async function openStream(key: string) {
  const abort = new AbortController();
  const response = await fetch(`${stack.url}/batch/stream`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ subjects: [{ name: HELD }] }),
    signal: abort.signal,
  });
  if (response.status === 200) {
    const reader = response.body!.getReader();
    await reader.read();
  }
  return { response, close: () => abort.abort() };
}

describe('request rate per tenant', () => {
  it('over the plan’s rate: 429 with Retry-After and a rate detail; refused requests do nothing; another tenant is unaffected', async () => {
    const [busy, quiet] = [await tenantOn('starter'), await tenantOn('starter')];
    const screen = () =>
      fetch(`${stack.url}/screen`, {
        method: 'POST',
        headers: { 'x-api-key': busy, 'content-type': 'application/json' },
        body: JSON.stringify({ name: madeUpName() }),
      });

    // Starter: 100 requests in any 10 seconds, at most 10 at once, refilled at 9 a second.
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 40 }, screen));
    const seconds = (Date.now() - started) / 1000;

    const admitted = answers.filter((r) => r.status === 200).length;
    expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(10 + Math.ceil(seconds * 9));
    const refused = answers.find((r) => r.status === 429)!;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    const { detail } = await refused.json();
    expect(detail).toMatch(
      /^Request rate limit reached: the Starter plan allows 100 requests in any 10 seconds \(10 per second\), at most 10 of them at once, for your tenant; retry after \d+ s\.$/,
    );
    expect(detail).not.toMatch(/Monthly|screens used/);
    expect((await me(quiet)).status).toBe(200);
    // The refused screens did nothing: only the admitted ones were charged.
    await sleep(retryAfter * 1000 + 100);
    const after = await me(busy);
    expect(after.status).toBe(200);
    expect((await after.json()).usage.screens_used).toBe(admitted);
  }, 30_000);
});

describe('open streams per tenant', () => {
  it('over the plan’s open streams: 429 with Retry-After and a stream detail; another tenant streams; a closed stream frees its slot', async () => {
    const [busy, other] = [await tenantOn('growth'), await tenantOn('growth')];
    // Growth: 3 streams open at once.
    const open = [await openStream(busy), await openStream(busy), await openStream(busy)];
    expect(open.map((s) => s.response.status)).toEqual([200, 200, 200]);

    const fourth = await openStream(busy);
    const export_ = await fetch(`${stack.url}/audit/export`, { headers: { 'x-api-key': busy } });
    const theirs = await openStream(other);

    expect(fourth.response.status).toBe(429);
    expect(fourth.response.headers.get('retry-after')).toBe('15');
    const { detail } = await fourth.response.json();
    expect(detail).toMatch(/^Open stream limit reached: the Growth plan allows 3 streamed responses/);
    expect(detail).not.toMatch(/Monthly|screens used/);
    expect(export_.status).toBe(429);
    expect(theirs.response.status).toBe(200);
    theirs.close();
    // The refused batch was never started: only the three open ones were charged.
    expect((await (await me(busy)).json()).usage.screens_used).toBe(3);

    open[0].close();
    let again = await openStream(busy);
    // The slot is given back when the stream sees that its client left: at once while it writes,
    // else at its next heartbeat (15 s).
    for (let i = 0; i < 40 && again.response.status === 429; i += 1) {
      await sleep(500);
      again = await openStream(busy);
    }
    expect(again.response.status).toBe(200);
    for (const stream of [...open.slice(1), again]) stream.close();
  }, 45_000);
});
