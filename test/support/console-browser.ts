/**
 * The console journeys' browser helpers (test/console/*.test.ts): a watched tab, signing in, and
 * the accessibility check every page passes at both widths.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { designationMirror } from './alert-lag.ts';
import { CHROMIUM_ARGS } from './chromium.ts';
import { snapshotOfLists } from './list-mirror.ts';
import { setSyncEnvironment } from './syncing-stack.ts';

export const NARROW = { width: 390, height: 844 };
export const WIDE = { width: 1280, height: 800 };

/** What the tabs saw that no page may do: requests off the origin, script errors. */
export interface TabWatch {
  offOrigin: string[];
  pageErrors: string[];
}

/** A fresh tab (its own sessionStorage) watched for requests off the origin and script errors; dialogs accepted. */
export async function openTab(
  browser: Browser,
  serviceUrl: string,
  watch: TabWatch,
  viewport = WIDE,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const origin = new URL(serviceUrl).origin;
  page.on('request', (request) => {
    const url = new URL(request.url());
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== origin)
      watch.offOrigin.push(request.url());
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  page.on('console', (message) => {
    // A failed API call is shown on the page; the browser also logs the status, which is expected.
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
      watch.pageErrors.push(message.text());
  });
  page.on('dialog', (dialog) => void dialog.accept());
  return { context, page };
}

/** Signs in on the sign-in page of `path` and waits for the signed-in header. */
export async function signInWith(
  page: Page,
  serviceUrl: string,
  key: string,
  path = '/console/',
): Promise<void> {
  await page.goto(`${serviceUrl}${path}`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * axe-core on the page as shown, at 1280 and 390 px: no serious or critical violation, nothing
 * wider than the window (a narrow window scrolls only inside a table's frame); at 390 px the
 * header stays compact (100 px at most) and every table shows its rows as cards.
 */
export async function accessible(page: Page, what: string): Promise<void> {
  for (const viewport of [WIDE, NARROW]) {
    await page.setViewportSize(viewport);
    const results = await new AxeBuilder({ page }).analyze();
    const bad = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad, `${what} at ${viewport.width}px`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${what} at ${viewport.width}px scrolls sideways`).toBeLessThanOrEqual(0);
    const layout = await page.evaluate(() => ({
      header: document.querySelector('header')?.getBoundingClientRect().height ?? 0,
      rows: [...document.querySelectorAll('.table-wrap tbody tr')].map((tr) => getComputedStyle(tr).display),
    }));
    if (viewport === NARROW) {
      expect(layout.header, `${what}: header height at 390px`).toBeLessThanOrEqual(100);
      expect(new Set(layout.rows), `${what}: table rows at 390px`).not.toContain('table-row');
    } else expect(new Set(layout.rows), `${what}: table rows at 1280px`).not.toContain('block');
  }
  await page.setViewportSize(WIDE);
}

/**
 * The helpers bound to one suite's browser and service (read when called: the suites start them
 * in beforeAll), with the suite's own watch of every tab it opens.
 */
export function consoleBrowser(browser: () => Browser, url: () => string) {
  const watch: TabWatch = { offOrigin: [], pageErrors: [] };
  return {
    ...watch,
    open: (viewport = WIDE) => openTab(browser(), url(), watch, viewport),
    signIn: (page: Page, key: string, path?: string) => signInWith(page, url(), key, path),
    accessible,
  };
}

/** A made-up name part per number (names need letters, not digits). */
export function words(n: number): string {
  const letters = 'abcdefghij';
  return String(n)
    .split('')
    .map((d) => letters[Number(d)])
    .join('')
    .replace(/^./, (c) => c.toUpperCase());
}

/** What a console journey runs on: the whole local stack syncing from a UN mirror, and a browser. */
export interface ConsoleStack {
  stack: LocalStack;
  browser: Browser;
  mirror: ReturnType<typeof designationMirror>;
  close(): Promise<void>;
}

/**
 * Builds the console if it is not built, starts the whole local stack with a list sync every 2 s
 * against a mirror of the UN list (without its designee until `mirror.list()`), over bundled lists
 * synced three days ago (so the US Congress list, not synced here, is stale), and launches Chromium.
 */
export async function startConsoleStack(executable: string): Promise<ConsoleStack> {
  const repoRoot = resolve(import.meta.dirname, '../..');
  if (!existsSync(join(repoRoot, 'dist/console/index.html')))
    execFileSync('bash', ['scripts/build-console.sh'], { cwd: repoRoot, stdio: 'ignore' });
  const environment = setSyncEnvironment({ lists: ['un_sc'], intervalSeconds: 2 });
  writeSnapshot(
    snapshotOfLists(['un_sc', 'us_congress_pep'], { now: new Date(Date.now() - 3 * 86_400_000) }),
    environment.bundledSnapshot,
  );
  const mirror = designationMirror(environment.mirrorDir);
  const stack = await startLocalStack({ dataDir: null });
  const browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
  return {
    stack,
    browser,
    mirror,
    async close() {
      await browser.close();
      await stack.close();
      environment.restore();
    },
  };
}
