import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoKey, useLocalServer } from '../support/api-client.ts';
import { codeBlocks as blocksOf, section } from '../support/markdown.ts';

const run = promisify(execFile);

/**
 * Where the examples live: the README's first calls, and the pages it links (the monitoring walk
 * through; the JavaScript and Python versions of the first calls, in the API guide).
 */
type Document = 'README.md' | 'docs/monitoring.md' | 'docs/api-guide.md';

/** The code blocks fenced as `language` in one section of a document (its heading at any level). */
function codeBlocks(document: Document, heading: string, language: 'bash' | 'js' | 'python'): string[] {
  const text = readFileSync(resolve(import.meta.dirname, '../..', document), 'utf8');
  return blocksOf(section(text, heading), language);
}

/**
 * The bash blocks of a section as one script against the test's stack: the reader's `BASE` and
 * `KEY` lines are pointed at it (the reader's key comes from .data/demo-keys.json; the test's
 * stack has its own), and any status of 400 or more fails the script, and so the test.
 */
function curlScript(document: Document, heading: string, key: string): string {
  return [
    'set -euo pipefail',
    'curl() { command curl --fail-with-body "$@"; }',
    ...codeBlocks(document, heading, 'bash'),
  ]
    .join('\n')
    .replace(/^BASE=.*$/m, `BASE=${local.stack.url}`)
    .replace(/^KEY=.*$/m, `KEY=${key}`);
}

const hasPython = (() => {
  try {
    execFileSync('python3', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

const local = useLocalServer();
let key: string;
beforeAll(async () => {
  key = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
}, 60_000);

describe('docs/monitoring.md examples', () => {
  it('the curl examples of "Clients and monitoring" run against the local server, every call 2xx', async () => {
    const monitoring = ['docs/monitoring.md', 'Clients and monitoring'] as const;
    expect(codeBlocks(...monitoring, 'bash').length).toBeGreaterThanOrEqual(5);

    const { stdout } = await run('bash', ['-c', curlScript(...monitoring, key)], { timeout: 60_000 });

    expect(stdout).toContain('"client_id":"CLI-');
    expect(stdout).toContain('"reference":"CUST-10042"');
    expect(stdout).toContain('"subjects":[');
    expect(stdout).toContain('event: complete');
    expect(stdout).toMatch(/"run_id":"RUN-\d{8}-[0-9a-f]{10}"/);
  });
});

/**
 * What each language's walk-through prints, in order: the screen's risk, the pending list, the
 * decision, the batch's completion, the new client and the re-screen run.
 */
function expectTheWalkThrough(stdout: string) {
  expect(stdout).toMatch(/\b(CRITICAL|HIGH)\b/);
  expect(stdout).toContain('needs_review');
  expect(stdout).toMatch(/complete[\s\S]*CLEAR/);
  expect(stdout).toMatch(/CLI-\d{8}-/);
  expect(stdout).toMatch(/RUN-\d{8}-[0-9a-f]{10}/);
}

describe('README "First calls" and the API guide\'s "Examples in curl, JavaScript and Python"', () => {
  const heading = 'Examples in curl, JavaScript and Python';

  it("the README's curl walk-through runs against the local server, every call 2xx", async () => {
    expect(codeBlocks('README.md', 'First calls', 'bash')).toHaveLength(1);

    const { stdout } = await run('bash', ['-c', curlScript('README.md', 'First calls', key)], {
      timeout: 60_000,
    });

    expect(stdout).toMatch(/event: progress[\s\S]*event: complete/);
    expectTheWalkThrough(stdout);
  });

  it('the JavaScript block runs in Node with no packages, every call 2xx', async () => {
    const [script] = codeBlocks('docs/api-guide.md', heading, 'js');

    const { stdout } = await run('node', ['--input-type=module', '-e', script], {
      timeout: 60_000,
      env: { ...process.env, BASE: local.stack.url, KEY: key },
    });

    expect(stdout).toMatch(/^SCR-\d{8}-\d{6} (CRITICAL|HIGH)$/m);
    expect(stdout).toMatch(/^2\/2 SCR-/m);
    expectTheWalkThrough(stdout);
  });

  it.skipIf(!hasPython)('the Python block runs with the standard library only, every call 2xx', async () => {
    const [script] = codeBlocks('docs/api-guide.md', heading, 'python');

    const { stdout } = await run('python3', ['-c', script], {
      timeout: 60_000,
      env: { ...process.env, BASE: local.stack.url, KEY: key },
    });

    expect(stdout).toMatch(/^SCR-\d{8}-\d{6} (CRITICAL|HIGH)$/m);
    expect(stdout).toMatch(/^2\/2 SCR-/m);
    expectTheWalkThrough(stdout);
  });
});
