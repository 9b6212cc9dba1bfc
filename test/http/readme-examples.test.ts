import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { demoKey } from '../screening/http-client.ts';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The ```bash blocks of one README section (from its `## ` heading to the next). */
function bashBlocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]);
}

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ dataDir: null });
}, 60_000);
afterAll(async () => stack.close());

describe('README examples', () => {
  it('the curl examples of "Clients and monitoring" run against the local server, every call 2xx', async () => {
    const blocks = bashBlocks('Clients and monitoring');
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const key = demoKey(stack, 'tdemoenterprise', 'admin').api_key;
    // The reader's key comes from .data/demo-keys.json; the test's stack has its own.
    const script = [
      'set -euo pipefail',
      // Any status of 400 or more fails the example (and so the test).
      'curl() { command curl --fail-with-body "$@"; }',
      ...blocks,
    ]
      .join('\n')
      .replace(/^BASE=.*$/m, `BASE=${stack.url}`)
      .replace(/^KEY=.*$/m, `KEY=${key}`);

    const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 60_000 });

    expect(stdout).toContain('"client_id":"CLI-');
    expect(stdout).toContain('"reference":"CUST-10042"');
    expect(stdout).toContain('"subjects":[');
    expect(stdout).toContain('event: complete');
    expect(stdout).toMatch(/"run_id":"RUN-\d{8}-[0-9a-f]{10}"/);
  });
});
