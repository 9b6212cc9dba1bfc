import { describe, expect, it } from 'vitest';
import { useLocalStack } from '../support/api-client.ts';
import { fuzzServer, fuzzTargets } from '../support/fuzz-requests.ts';

const local = useLocalStack();

// The CI slice of `npm run fuzz` (10,000 requests): the same generator, fewer requests, fixed seed.
describe('generated requests across every route', () => {
  it('never get a 5xx, every 4xx has a JSON detail, and the server stays healthy', async () => {
    const targets = await fuzzTargets(local.stack.url, local.stack.demoKeys);
    const outcome = await fuzzServer(local.stack.url, targets, { runs: 400, seed: 7 });

    expect(outcome.requests).toBe(400);
    expect(outcome.violations).toEqual([]);
    // The slice reaches both answers and refusals.
    expect(outcome.byStatusClass['2xx']).toBeGreaterThan(0);
    expect(outcome.byStatusClass['4xx']).toBeGreaterThan(0);
    expect((await fetch(`${local.stack.url}/health`)).status).toBe(200);
  }, 180_000);
});
