/**
 * `npm run bench:console`: the console's first load and time to interactive on the local stack.
 *
 * 1. Size: the files a first visit downloads (index.html and every asset it references), raw and
 *    gzipped as the service sends them, against the budget below.
 * 2. Time: the service runs as its own process (npm start's entry, demo keys); Debian's Chromium
 *    opens /console with a cold cache, RUNS times each: until the sign-in form takes input, and
 *    from pressing Sign in until the account page shows the user's plan (GET /me answered).
 *
 * Builds the console first when dist/console is missing. Prints one JSON object.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumExecutable } from '../test/support/chromium.ts';
import { freePort, spawnService, waitFor } from './service-process.ts';

/** The first load's budget, gzipped: what a slow branch-office link fetches in about a second. */
export const BUDGET_GZIP_BYTES = 40 * 1024;
const RUNS = Number(process.env.RUNS ?? 5);
const repoRoot = resolve(import.meta.dirname, '..');
const dist = join(repoRoot, 'dist/console');

if (!existsSync(join(dist, 'index.html')))
  execFileSync('bash', ['scripts/build-console.sh'], { cwd: repoRoot });
const html = readFileSync(join(dist, 'index.html'));
const files = [
  { name: 'index.html', bytes: html },
  ...[...html.toString().matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((m) => ({
    name: m[1],
    bytes: readFileSync(join(dist, m[1])),
  })),
];
const size = {
  files: files.map((f) => ({ name: f.name, bytes: f.bytes.length, gzip: gzipSync(f.bytes).length })),
  bytes: files.reduce((sum, f) => sum + f.bytes.length, 0),
  gzip: files.reduce((sum, f) => sum + gzipSync(f.bytes).length, 0),
  budget_gzip: BUDGET_GZIP_BYTES,
};

const executable = chromiumExecutable();
if (!executable) throw new Error('bench:console needs Chromium (/usr/bin/chromium or CHROMIUM_PATH)');
const dataDir = mkdtempSync(join(tmpdir(), 'bench-console-'));
const port = await freePort();
const service = spawnService({ port, dataDir });
const url = `http://127.0.0.1:${port}`;
try {
  await waitFor('the service to be ready', async () =>
    (await fetch(`${url}/health`)).status === 200 ? true : undefined,
  );
  const key = (
    JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')) as { keys: { api_key: string }[] }
  ).keys[0].api_key;
  const browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
  const signInReady: number[] = [];
  const accountShown: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${url}/console/`);
    await page.getByLabel('API key').waitFor();
    signInReady.push(performance.now() - started);
    await page.getByLabel('API key').fill(key);
    const pressed = performance.now();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByText(/screens used/).waitFor();
    accountShown.push(performance.now() - pressed);
    await context.close();
  }
  await browser.close();
  const median = (values: number[]) =>
    Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
  console.log(
    JSON.stringify(
      {
        first_load: { ...size, within_budget: size.gzip <= BUDGET_GZIP_BYTES },
        runs: RUNS,
        sign_in_interactive_ms: { median: median(signInReady), all: signInReady.map(Math.round) },
        account_shown_after_sign_in_ms: { median: median(accountShown), all: accountShown.map(Math.round) },
        load_average: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
      },
      null,
      2,
    ),
  );
} finally {
  service.kill('SIGTERM');
  await new Promise((done) => service.once('exit', done));
  rmSync(dataDir, { recursive: true, force: true });
}
