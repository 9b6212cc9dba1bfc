import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

export const NARROW = { width: 390, height: 844 };
export const WIDE = { width: 1280, height: 800 };

/**
 * The console journeys' browser helpers (test/console/*.test.ts): tabs watched for requests off
 * the origin and script errors, signing in with a key, and the accessibility check every page
 * passes. `browser` and `url` are read when called (the suites start them in beforeAll).
 */
export function consoleBrowser(browser: () => Browser, url: () => string) {
  const offOrigin: string[] = [];
  const pageErrors: string[] = [];

  /** A fresh tab (its own sessionStorage) watched for requests off the origin and script errors. */
  async function open(viewport = WIDE): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser().newContext({ viewport });
    const page = await context.newPage();
    const origin = new URL(url()).origin;
    page.on('request', (request) => {
      const target = new URL(request.url());
      if ((target.protocol === 'http:' || target.protocol === 'https:') && target.origin !== origin)
        offOrigin.push(request.url());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      // A failed API call is shown on the page; the browser also logs the status, which is expected.
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
        pageErrors.push(message.text());
    });
    page.on('dialog', (dialog) => void dialog.accept());
    return { context, page };
  }

  async function signIn(page: Page, key: string, path = '/console/'): Promise<void> {
    await page.goto(`${url()}${path}`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /**
   * axe-core on the page as shown, at 1280 and 390 px: no serious or critical violation, nothing
   * wider than the window (a narrow window scrolls only inside a table's frame); at 390 px the
   * header stays compact (100 px at most) and every table shows its rows as cards.
   */
  async function accessible(page: Page, what: string): Promise<void> {
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
        rows: [...document.querySelectorAll('.table-wrap tbody tr')].map(
          (tr) => getComputedStyle(tr).display,
        ),
      }));
      if (viewport === NARROW) {
        expect(layout.header, `${what}: header height at 390px`).toBeLessThanOrEqual(100);
        expect(new Set(layout.rows), `${what}: table rows at 390px`).not.toContain('table-row');
      } else expect(new Set(layout.rows), `${what}: table rows at 1280px`).not.toContain('block');
    }
    await page.setViewportSize(WIDE);
  }

  return { offOrigin, pageErrors, open, signIn, accessible };
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
