/**
 * The console's journeys in a real browser (Debian's Chromium through playwright-core) against the
 * whole local stack: the same process serves /console and the API, with a list sync running
 * against a local mirror of the UN list. Every page is checked with axe-core (no serious or
 * critical violation) at 1280×800 and at a phone's width, and no request may leave the origin.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack.ts';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../lib/api-docs/console-files.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { DESIGNEE, type designationMirror, serviceClient } from '../support/alert-lag.ts';
import { chromiumExecutable, missingChromium } from '../support/chromium.ts';
import { consoleBrowser, startConsoleStack, words } from '../support/console-browser.ts';
import { eventually } from '../support/eventually.ts';

/** A real UN designee with his listed date of birth: a confirmed (CRITICAL) sanctions match. */
const CRITICAL_SUBJECT = { name: 'Germain Katanga', dob: '1978-04-28' };

const executable = chromiumExecutable();

describe('the console in a browser', { timeout: 240_000 }, () => {
  if (!executable) {
    const reason = missingChromium('test/console/console.test.ts');
    it('needs Chromium', (context) => context.skip(reason));
    return;
  }

  let stack: LocalStack;
  let browser: Browser;
  let mirror: ReturnType<typeof designationMirror>;
  let close: () => Promise<void>;
  let tenantId: string;
  let tenantName: string;
  let adminKey: string;
  let secondAdminKey: string;
  let analystKey: string;
  const { offOrigin, pageErrors, open, signIn, accessible } = consoleBrowser(
    () => browser,
    () => stack.url,
  );

  beforeAll(async () => {
    ({ stack, browser, mirror, close } = await startConsoleStack(executable));
    const { table } = getServices();
    const created = await createTenant(table, { name: 'Console Journeys Bank', plan: 'enterprise' });
    tenantId = created.tenant.tenant_id;
    tenantName = created.tenant.name;
    adminKey = created.admin.api_key;
    secondAdminKey = (
      await addUser(table, tenantId, { name: 'Second Admin', role: 'admin', issuer: OPERATIONS_ISSUER })
    ).api_key;
    analystKey = (
      await addUser(table, tenantId, { name: 'Ana Lyst', role: 'analyst', issuer: OPERATIONS_ISSUER })
    ).api_key;
  }, 180_000);

  afterAll(async () => {
    await close?.();
  });

  it('serves the page and its files from the service under a strict policy; any console path reloads the page', async () => {
    const page = await fetch(`${stack.url}/console/screens/SCR-20260101-000001`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).toMatch(/default-src 'self'/);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/https?:|\*|'unsafe-/);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const file = await fetch(`${stack.url}${asset}`);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('cache-control'), asset).toMatch(/immutable/);
    }
    const missing = await fetch(`${stack.url}/console/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toMatch(/No console file/);
  });

  it('signs in with a key (keyboard only), shows the account, keeps the key out of the URL, and signs out', async () => {
    const { context, page } = await open();
    await page.goto(`${stack.url}/console/`);
    await accessible(page, 'sign-in');
    // A wrong key: the API's detail is shown.
    await page.getByLabel('API key').fill('isk_nobody.wrong');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/key/i);

    await page.getByLabel('API key').fill(adminKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    const facts = await page.locator('main').textContent();
    expect(facts).toContain(tenantName);
    expect(facts).toContain('admin');
    expect(facts).toContain('Enterprise');
    expect(facts).toMatch(/\d+ screens used/);
    expect(page.url()).not.toContain(adminKey);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([adminKey]);
    expect(await page.evaluate(() => Object.values(localStorage))).toEqual([]);
    await accessible(page, 'account');

    // Keyboard: each page puts the focus on its heading; the header's controls are just before it.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Your account');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign out');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([]);
    await context.close();
  });

  let criticalScreenId: string;

  it('a CRITICAL screen from the queue is opened, explained and disposed with approval requested', async () => {
    const api = serviceClient(stack.url, analystKey);
    const screened = await api.post('/screen', { ...CRITICAL_SUBJECT, types: 'sanctions,pep' });
    expect(screened.body.risk_level).toBe('CRITICAL');
    criticalScreenId = screened.body.screen_id;

    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Alert queue' }).click();
    await page.getByLabel('Risk level').selectOption('CRITICAL');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: criticalScreenId }).click();
    await page.getByRole('heading', { name: `Screen ${criticalScreenId}` }).waitFor();
    await accessible(page, 'screen detail');

    const sanctions = page.locator('section', { has: page.getByRole('heading', { name: /^Sanctions/ }) });
    expect(await sanctions.textContent()).toContain('CRITICAL');
    const match = sanctions.locator('article.match').first();
    expect(await match.textContent()).toMatch(/KATANGA/i);
    expect(await match.locator('dt').allTextContents()).toEqual(
      expect.arrayContaining(['Name', 'Date of birth', 'Nationality', 'Location']),
    );
    expect(await match.textContent()).toMatch(/Date of birth\s*matched/);
    expect(await sanctions.locator('.narrative').textContent()).toMatch(/\w+/);
    expect(await page.getByRole('heading', { name: 'Receipt' }).count()).toBe(1);

    await page.getByLabel('Disposition').selectOption('confirmed_hit');
    await page.getByLabel('Note').fill('Same man: name and date of birth agree with the UN listing.');
    await page.getByLabel("Request an admin's approval").check();
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByText('You made this decision; another admin must approve it.').waitFor();
    expect(await page.locator('ol.history').textContent()).toMatch(/v1 confirmed_hit.*approval requested/);
    // Nobody can approve their own decision: the button is not offered.
    expect(await page.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await context.close();
  });

  it('a second admin sees it in the approval queue and approves it', async () => {
    const { context, page } = await open();
    await signIn(page, secondAdminKey);
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('link', { name: criticalScreenId }).click();
    await page.getByText("Awaiting an admin's approval.").waitFor();
    await page.getByRole('button', { name: 'Approve confirmed_hit' }).click();
    await page
      .locator('ol.history')
      .getByText(/approved by/)
      .first()
      .waitFor();
    const screen = (await serviceClient(stack.url, adminKey).get(`/screens/${criticalScreenId}`)).body;
    expect(screen.disposition.awaiting_approval).toBe(false);
    expect(screen.disposition.approved_decision ?? screen.disposition).toBeTruthy();
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Nothing here|screens on this page/ })
      .waitFor();
    expect(await page.getByRole('link', { name: criticalScreenId }).count()).toBe(0);
    await accessible(page, 'approval queue');
    await context.close();
  });

  it('imports a CSV of 200 clients with live progress, per-row errors and a summary', {
    timeout: 420_000,
  }, async () => {
    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('heading', { name: 'Clients', exact: true }).waitFor();
    await accessible(page, 'clients');
    const rows = Array.from({ length: 200 }, (_, i) => `Imported Person ${words(i)},,,,,IMP-${i}`);
    rows[7] = 'X,,,,,IMP-7'; // a name too short: that row's error, the rest still imported
    const csv = `name,dob,nationality,location,alias,reference\n${rows.join('\n')}\n`;
    // Every value the progress bar shows, as it shows it.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progressSeen: number[] }).progressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('.batch-progress progress') as HTMLProgressElement | null;
        if (bar) seen.push(bar.value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'clients.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import' }).click();
    // 200 registrations, each a screen: minutes on a loaded 2-core machine.
    await page
      .getByText(/Done: 199 of 200 screened, 1 failed/)
      .waitFor({ timeout: 300_000 })
      .catch(async (error) => {
        throw new Error(`${error.message}; the page showed: ${await page.locator('main').textContent()}`);
      });
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
    expect(seen.some((value) => value > 0 && value < 200)).toBe(true);
    expect(await page.locator('.row-errors').textContent()).toMatch(/Row 8: .*name/i);
    const listed = await serviceClient(stack.url, adminKey).get('/clients?reference=IMP-199');
    expect(listed.body.clients).toHaveLength(1);
    await context.close();
  });

  it('a monitoring alert appears in the queue after a list sync', async () => {
    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Clients' }).click();
    await page.getByLabel('Name', { exact: true }).fill(DESIGNEE.name);
    await page.getByLabel('Reference', { exact: true }).first().fill('WATCH-1');
    await page.getByRole('button', { name: 'Register and screen' }).click();
    await page.getByRole('heading', { name: /^Client CLI-/ }).waitFor();
    const clientId = (await page.getByRole('heading', { name: /^Client CLI-/ }).textContent())!.slice(7);
    await accessible(page, 'client');

    mirror.list(); // the publisher lists him; the next sync rescreens the client
    const api = serviceClient(stack.url, adminKey);
    const alert = await eventually(
      async () =>
        (await api.get(`/clients/${clientId}`)).body.open_alert?.raised_by_screen_id as string | undefined,
      (id) => Boolean(id),
      90_000,
    );

    await page.getByRole('link', { name: 'Alert queue' }).click();
    await page.getByLabel('Origin').selectOption('rescreen');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: alert! }).waitFor();
    const row = page.locator('tr', { has: page.getByRole('link', { name: alert! }) });
    expect(await row.textContent()).toContain(DESIGNEE.name);
    expect(await row.textContent()).toContain('monitoring alert');
    await accessible(page, 'alert queue');
    await context.close();
  });

  it('an admin adds a user, then disables them after confirming', async () => {
    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel("New analyst's name").fill('Casey Newhire');
    await page.getByRole('button', { name: 'Add analyst' }).click();
    const key = await page.locator('.notice code.secret').textContent();
    expect(key).toMatch(/^isk_/);
    const row = page.locator('tr', { hasText: 'Casey Newhire' });
    await row.waitFor();
    await accessible(page, 'users');
    await row.getByRole('button', { name: 'Disable Casey Newhire' }).click();
    await row.getByText(/^disabled/).waitFor();
    expect((await fetch(`${stack.url}/me`, { headers: { 'x-api-key': key! } })).status).toBe(401);
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('cell', { name: 'user.disable' }).first().waitFor();
    await accessible(page, 'audit trail');
    await context.close();
  });

  it('the lists page calls out the stale lists /dbstatus names', async () => {
    const { context, page } = await open();
    await signIn(page, analystKey);
    await page.getByRole('link', { name: 'Lists' }).click();
    const status = (await serviceClient(stack.url, analystKey).get('/dbstatus')).body as {
      stale_lists: string[];
      lists: { id: string; name: string }[];
    };
    expect(status.stale_lists).toContain('us_congress_pep');
    const warning = page.getByRole('alert');
    await warning.waitFor();
    for (const id of status.stale_lists)
      expect(await warning.textContent()).toContain(status.lists.find((l) => l.id === id)!.name);
    expect(await page.locator('tr.stale').count()).toBe(status.stale_lists.length);
    await accessible(page, 'lists');
    // Analysts see no admin pages.
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await context.close();
  });

  it('the batch page screens a CSV and offers the results as CSV', async () => {
    const { context, page } = await open();
    await signIn(page, adminKey, '/console/batch');
    await page.getByRole('heading', { name: 'Batch screening' }).waitFor();
    await accessible(page, 'batch');
    const csv = `name,dob\n${CRITICAL_SUBJECT.name},${CRITICAL_SUBJECT.dob}\nJane Ordinary Person,1980-01-01\n`;
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'batch.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Screen' }).click();
    await page.getByText(/Done: 2 of 2 screened/).waitFor({ timeout: 60_000 });
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download results (CSV)' }).click();
    const file = await (await download).createReadStream();
    let text = '';
    for await (const chunk of file) text += chunk;
    // The API's export (GET /batch/{id}/results?format=csv): the best match beside each subject.
    expect(text.split(/\r?\n/)[0]).toMatch(
      /^row,name,dob,.*,screen_id,risk_level,.*best_match_name,best_match_list/,
    );
    expect(text).toMatch(/\n1,Germain Katanga,1978-04-28,.*SCR-\d{8}-\d+,CRITICAL,.*KATANGA.*,un_sc,/i);
    await context.close();
  });

  it('no request left the origin and no script failed on any page', () => {
    expect(offOrigin).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
