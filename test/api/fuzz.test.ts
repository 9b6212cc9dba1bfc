import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { fuzzServer, fuzzTargets } from '../support/fuzz-requests.ts';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ dataDir: null });
}, 60_000);
afterAll(async () => stack.close());

// The CI slice of `npm run fuzz` (10,000 requests): the same generator, fewer requests, fixed seed.
describe('generated requests across every route', () => {
  it('never get a 5xx, every 4xx has a JSON detail, and the server stays healthy', async () => {
    const targets = await fuzzTargets(stack.url, stack.demoKeys);
    const outcome = await fuzzServer(stack.url, targets, { runs: 400, seed: 7 });

    expect(outcome.requests).toBe(400);
    expect(outcome.violations).toEqual([]);
    // The slice reaches both answers and refusals.
    expect(outcome.byStatusClass['2xx']).toBeGreaterThan(0);
    expect(outcome.byStatusClass['4xx']).toBeGreaterThan(0);
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
  }, 180_000);
});
