import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { demoKey } from '../screening/http-client.ts';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const run = promisify(execFile);

/** The code blocks fenced as `language` in one README section (from its `## ` heading to the next). */
function codeBlocks(heading: string, language: 'bash' | 'js' | 'python'): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1],
  );
}

/**
 * The bash blocks of a section as one script against the test's stack: the reader's `BASE` and
 * `KEY` lines are pointed at it (the reader's key comes from .data/demo-keys.json; the test's
 * stack has its own), and any status of 400 or more fails the script, and so the test.
 */
function curlScript(heading: string, key: string): string {
  return [
    'set -euo pipefail',
    'curl() { command curl --fail-with-body "$@"; }',
    ...codeBlocks(heading, 'bash'),
  ]
    .join('\n')
    .replace(/^BASE=.*$/m, `BASE=${stack.url}`)
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

let stack: LocalStack;
let key: string;
beforeAll(async () => {
  stack = await startLocalStack({ dataDir: null });
  key = demoKey(stack, 'tdemoenterprise', 'admin').api_key;
}, 60_000);
afterAll(async () => stack.close());

describe('README examples', () => {
  it('the curl examples of "Clients and monitoring" run against the local server, every call 2xx', async () => {
    expect(codeBlocks('Clients and monitoring', 'bash').length).toBeGreaterThanOrEqual(5);

    const { stdout } = await run('bash', ['-c', curlScript('Clients and monitoring', key)], {
      timeout: 60_000,
    });

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

describe('README "Examples in curl, JavaScript and Python"', () => {
  const heading = 'Examples in curl, JavaScript and Python';

  it('the curl block runs against the local server, every call 2xx', async () => {
    const { stdout } = await run('bash', ['-c', curlScript(heading, key)], { timeout: 60_000 });

    expect(stdout).toMatch(/event: progress[\s\S]*event: complete/);
    expectTheWalkThrough(stdout);
  });

  it('the JavaScript block runs in Node with no packages, every call 2xx', async () => {
    const [script] = codeBlocks(heading, 'js');

    const { stdout } = await run('node', ['--input-type=module', '-e', script], {
      timeout: 60_000,
      env: { ...process.env, BASE: stack.url, KEY: key },
    });

    expect(stdout).toMatch(/^SCR-\d{8}-\d{6} (CRITICAL|HIGH)$/m);
    expect(stdout).toMatch(/^2\/2 SCR-/m);
    expectTheWalkThrough(stdout);
  });

  it.skipIf(!hasPython)('the Python block runs with the standard library only, every call 2xx', async () => {
    const [script] = codeBlocks(heading, 'python');

    const { stdout } = await run('python3', ['-c', script], {
      timeout: 60_000,
      env: { ...process.env, BASE: stack.url, KEY: key },
    });

    expect(stdout).toMatch(/^SCR-\d{8}-\d{6} (CRITICAL|HIGH)$/m);
    expect(stdout).toMatch(/^2\/2 SCR-/m);
    expectTheWalkThrough(stdout);
  });
});
