/**
 * Issue 39, items 4, 5, 9, 10 and 11 in a real browser (Debian's Chromium through playwright-core)
 * against the whole local stack (the set-up of test/console/console.test.ts): a 200-row
 * `;`-separated batch whose results table and CSV come from the API; an admin rotating a webhook
 * secret and replaying a delivery, received on 127.0.0.1; the settings and lists pages with their
 * charts; actions the API would refuse are not offered; and axe-core on every page at 1280 and
 * 390 px (no serious or critical violation), with tables as card rows and a compact header on the
 * narrow window. No request may leave the origin.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { serviceClient } from '../support/alert-lag.ts';
import { CHROMIUM_ARGS, chromiumExecutable, missingChromium } from '../support/chromium.ts';
import { consoleBrowser, words } from '../support/console-browser.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
/** A real UN designee with his listed date of birth: a confirmed (CRITICAL) sanctions match. */
const CRITICAL_SUBJECT = { name: 'Germain Katanga', dob: '1978-04-28' };
/** A subject's name a spreadsheet would run as a formula (OWASP CSV injection). */
const FORMULA_NAME = '=HYPERLINK("http://127.0.0.1:9/x","Click Me")';

const executable = chromiumExecutable();

describe('the console’s batch results and admin pages in a browser', { timeout: 240_000 }, () => {
  if (!executable) {
    const reason = missingChromium('test/console/admin-pages.test.ts');
    it('needs Chromium', (context) => context.skip(reason));
    return;
  }

  let stack: LocalStack;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let adminKey: string;
  let secondAdminId: string;
  let secondAdminKey: string;
  let analystKey: string;
  let analystId: string;
  const { offOrigin, pageErrors, open, signIn, accessible } = consoleBrowser(
    () => browser,
    () => stack.url,
  );

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist/console/index.html')))
      execFileSync('bash', ['scripts/build-console.sh'], { cwd: repoRoot, stdio: 'ignore' });
    // The local stack lets webhooks reach loopback receivers (WEBHOOK_ALLOW_LOOPBACK defaults to true there).
    receiver = await startReceiver({}, '127.0.0.1');
    stack = await startLocalStack({ dataDir: null });
    await stack.ready;
    const { table } = getServices();
    const created = await createTenant(table, { name: 'Admin Pages Bank', plan: 'enterprise' });
    const tenantId = created.tenant.tenant_id;
    adminKey = created.admin.api_key;
    const secondAdmin = await addUser(table, tenantId, {
      name: 'Second Admin',
      role: 'admin',
      issuer: OPERATIONS_ISSUER,
    });
    secondAdminId = secondAdmin.user.user_id;
    secondAdminKey = secondAdmin.api_key;
    const analyst = await addUser(table, tenantId, {
      name: 'Ana Lyst',
      role: 'analyst',
      issuer: OPERATIONS_ISSUER,
    });
    analystKey = analyst.api_key;
    analystId = analyst.user.user_id;
    browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await receiver?.close();
  });

  it('a 200-row `;`-separated batch runs; its results table is riskiest first and its CSV has match columns and no live formula', {
    timeout: 420_000,
  }, async () => {
    const { context, page } = await open();
    await signIn(page, adminKey, '/console/batch');
    await page.getByRole('heading', { name: 'Batch screening' }).waitFor();
    const rows = Array.from({ length: 200 }, (_, i) => `Batch Person ${words(i)};;`);
    rows[0] = `${CRITICAL_SUBJECT.name};${CRITICAL_SUBJECT.dob};`;
    rows[1] = `"${FORMULA_NAME.replace(/"/g, '""')}";;`;
    const csv = `name;dob;nationality\r\n${rows.join('\r\n')}\r\n`;
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'batch.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Screen' }).click();
    await page
      .getByText(/Done: 200 of 200 screened, 0 failed/)
      .waitFor({ timeout: 300_000 })
      .catch(async (error) => {
        throw new Error(`${error.message}; the page showed: ${await page.locator('main').textContent()}`);
      });

    // The table: row, name, risk, best match, list; the CRITICAL designee first.
    const table = page.getByRole('region', { name: 'Batch results' });
    await table.locator('tbody tr').nth(199).waitFor();
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'Row',
      'Name',
      'Risk',
      'Best match',
      'List',
    ]);
    const first = await table.locator('tbody tr').first().locator('th, td').allTextContents();
    expect(first.slice(0, 3)).toEqual(['1', CRITICAL_SUBJECT.name, 'CRITICAL']);
    expect(first[3]).toMatch(/KATANGA/i);
    // Listed by the UN and OFAC: the list is the strongest match's, the same in the CSV below.
    expect(['un_sc', 'ofac_sdn']).toContain(first[4]);
    const risks = await table.locator('tbody tr td:nth-child(3)').allTextContents();
    const order = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'CLEAR'];
    expect(risks.map((r) => order.indexOf(r))).toEqual(
      [...risks.map((r) => order.indexOf(r))].sort((a, b) => a - b),
    );
    // The risk mix chart counts what the table shows.
    const mix = page.locator('figure', { hasText: 'Risk mix' });
    expect(await mix.locator('li', { hasText: 'CRITICAL' }).locator('.bar-value').textContent()).toBe(
      String(risks.filter((r) => r === 'CRITICAL').length),
    );
    await accessible(page, 'batch results');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download results (CSV)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^BAT-\d{8}-[0-9a-f]{10}-results\.csv$/);
    let text = '';
    for await (const chunk of await file.createReadStream()) text += chunk;
    const [header, ...lines] = parseCsv(text);
    expect(header).toEqual(
      expect.arrayContaining([
        'row',
        'name',
        'risk_level',
        'best_match_name',
        'best_match_list',
        'best_match_score',
      ]),
    );
    expect(lines).toHaveLength(200);
    const column = (name: string) => header.indexOf(name);
    const katanga = lines.find((cells) => cells[column('row')] === '1')!;
    expect(katanga[column('risk_level')]).toBe('CRITICAL');
    expect(katanga[column('best_match_list')]).toBe(first[4]);
    expect(katanga[column('best_match_name')]).toMatch(/KATANGA/i);
    // The formula comes back as text: a quote before it, and no cell anywhere a spreadsheet would run.
    expect(lines.find((cells) => cells[column('row')] === '2')![column('name')]).toBe(`'${FORMULA_NAME}`);
    expect(lines.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);

    // The batch is listed with the week's batches and reopens with its results (/batch/{id}).
    const batchId = file.suggestedFilename().replace(/-results\.csv$/, '');
    await page.getByRole('link', { name: 'Batch', exact: true }).click();
    await page.getByRole('link', { name: batchId }).click();
    await page.getByRole('heading', { name: `Batch ${batchId}` }).waitFor();
    const reopened = page.getByRole('region', { name: 'Batch results' });
    await reopened.locator('tbody tr').nth(199).waitFor();
    expect(await reopened.locator('tbody tr').first().locator('th, td').allTextContents()).toEqual(first);
    await accessible(page, 'a batch reopened');
    await context.close();
  });

  it('a plan without batch screening is offered no batch form (the API refuses the batch with 403)', async () => {
    const starter = await createTenant(getServices().table, { name: 'Starter Pages Bank', plan: 'starter' });
    const refused = await serviceClient(stack.url, starter.admin.api_key).post('/batch/stream', {
      subjects: [{ name: 'Jane Ordinary Person' }],
    });
    expect(refused.status).toBe(403);
    const { context, page } = await open();
    await signIn(page, starter.admin.api_key, '/console/batch');
    await page.getByText(/does not include batch screening/).waitFor();
    expect(await page.getByLabel('CSV file').count()).toBe(0);
    await context.close();
  });

  it('an admin adds a webhook endpoint, sends a test, rotates its secret and replays the delivery from the console', async () => {
    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const url = receiver.url('/console-hook');
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByLabel('Description').fill('Case system');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const firstSecret = (await page.locator('.notice code.secret').textContent())!;
    expect(firstSecret).toMatch(/^whsec_/);
    const row = page.locator('tr', { hasText: url });
    await row.waitFor();
    await accessible(page, 'webhooks');

    await row.getByRole('button', { name: `Send test to ${url}` }).click();
    const tested = await eventually(
      async () => receiver.on('/console-hook'),
      (got) => got.length === 1,
      30_000,
    );
    const deliveryId = tested[0].headers['webhook-id'];
    expect(
      (new Webhook(firstSecret).verify(tested[0].body, tested[0].headers) as { type: string }).type,
    ).toBe('webhook.test');

    await row.getByRole('button', { name: `Rotate secret of ${url}` }).click();
    await page.locator('.notice code.secret', { hasNotText: firstSecret }).waitFor();
    const newSecret = (await page.locator('.notice code.secret').textContent())!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(firstSecret);
    await row.getByText(/previous secret signs until/).waitFor();

    // The deliveries, filtered to the test event and to succeeded ones; the test is replayed.
    await row.getByRole('button', { name: `Deliveries of ${url}` }).click();
    const deliveries = page.locator('section', {
      has: page.getByRole('heading', { name: /^Deliveries of/ }),
    });
    await deliveries.getByLabel('Event').selectOption('webhook.test');
    await deliveries.getByLabel('Outcome').selectOption('succeeded');
    await deliveries.getByRole('button', { name: 'Filter' }).click();
    const delivered = deliveries.locator('tr', { hasText: deliveryId });
    await delivered.waitFor();
    await accessible(page, 'webhook deliveries');
    await deliveries.getByLabel('Outcome').selectOption('failed');
    await deliveries.getByRole('button', { name: 'Filter' }).click();
    await deliveries.getByText('No deliveries match.').waitFor();
    await deliveries.getByLabel('Outcome').selectOption('');
    await deliveries.getByRole('button', { name: 'Filter' }).click();
    await delivered.getByRole('button', { name: `Replay ${deliveryId}` }).click();
    await deliveries.getByRole('status').filter({ hasText: /./ }).first().waitFor();

    // The replay arrives: the same webhook-id, signed with the new secret (and the old one, in the overlap).
    const replayed = await eventually(
      async () => receiver.on('/console-hook'),
      (got) => got.length === 2,
      30_000,
    );
    expect(replayed[1].headers['webhook-id']).toBe(deliveryId);
    expect(
      (new Webhook(newSecret).verify(replayed[1].body, replayed[1].headers) as { type: string }).type,
    ).toBe('webhook.test');
    expect(() => new Webhook(firstSecret).verify(replayed[1].body, replayed[1].headers)).not.toThrow();
    await eventually(
      async () => (await serviceClient(stack.url, adminKey).get('/audit?limit=50')).body,
      (body: { entries: { action: string }[] }) =>
        ['webhook.rotate-secret', 'webhook.replay'].every((action) =>
          body.entries.some((entry) => entry.action === action),
        ),
      15_000,
    );
    await context.close();
  });

  it('settings: the retention period and lock are set; the lock is not offered again; the SLA targets are read-only', async () => {
    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Queue SLA targets' }).waitFor();
    const sla = page.getByRole('region', { name: 'SLA targets' });
    await sla.locator('tbody th').nth(4).waitFor();
    expect(await sla.locator('tbody th').allTextContents()).toEqual([
      'CRITICAL',
      'HIGH',
      'MEDIUM',
      'LOW',
      'CLEAR',
    ]);
    expect(await page.locator('main').textContent()).toMatch(/policy proposal/);
    expect(await sla.locator('input, select, button').count()).toBe(0);
    await accessible(page, 'settings');

    await page.getByLabel(/Retention period in days/).fill('400');
    await page.getByLabel(/Turn the retention lock on/).check();
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText(/The retention lock is on/).waitFor();
    expect(await page.getByLabel(/Turn the retention lock on/).count()).toBe(0);
    expect(await page.getByLabel(/Retention period in days/).getAttribute('min')).toBe('400');
    const settings = (await serviceClient(stack.url, adminKey).get('/settings')).body;
    expect(settings).toMatchObject({ retention_days: 400, retention_lock: true });
    await context.close();
  });

  it('users: no "Reset key" on an admin (the API refuses it); each button’s name starts with its text', async () => {
    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Users' }).click();
    const admin = page.locator('tr', { hasText: secondAdminId });
    const analyst = page.locator('tr', { hasText: analystId });
    await analyst.waitFor();
    expect(await admin.getByRole('button', { name: /^Reset key/ }).count()).toBe(0);
    expect(await admin.textContent()).toMatch(/reset by operations/);
    expect(await analyst.getByRole('button', { name: 'Reset key of Ana Lyst' }).count()).toBe(1);
    // The API does refuse it, so offering it would only end in this 403.
    const refused = await fetch(`${stack.url}/users/${secondAdminId}/revoke-key`, {
      method: 'POST',
      headers: { 'x-api-key': adminKey },
    });
    expect(refused.status).toBe(403);
    for (const button of await page.locator('main button[aria-label]').all()) {
      const [text, name] = [await button.textContent(), await button.getAttribute('aria-label')];
      expect(name?.startsWith(text!.trim()), `${name} starts with ${text}`).toBe(true);
    }
    await accessible(page, 'users');
    await context.close();
  });

  it('the lists page draws each list’s age against its limit; the account page draws alerts per day', async () => {
    const { context, page } = await open();
    await signIn(page, analystKey);
    await page.getByRole('heading', { name: 'Monitoring alerts, last 14 days' }).waitFor();
    await page.getByRole('img', { name: /Alerts raised and decided per day/ }).waitFor();
    expect(await page.getByText('Alerts per day as a table').count()).toBe(1);
    await accessible(page, 'account');
    await page.getByRole('link', { name: 'Lists' }).click();
    const status = (await serviceClient(stack.url, analystKey).get('/dbstatus')).body as {
      lists: { name: string; age_days: number | null; age_limit_days: number }[];
    };
    const chart = page.locator('figure', { hasText: /Age of each list/ });
    await chart.waitFor();
    expect(await chart.locator('li').count()).toBe(status.lists.length);
    const one = status.lists.find((list) => list.age_days !== null)!;
    expect(await chart.locator('li', { hasText: one.name }).locator('.bar-value').textContent()).toBe(
      `${one.age_days} of ${one.age_limit_days} days`,
    );
    await accessible(page, 'lists');
    // Analysts get no admin pages.
    for (const name of ['Users', 'Webhooks', 'Settings', 'Policy'])
      expect(await page.getByRole('link', { name }).count(), name).toBe(0);
    await context.close();
  });

  it('policy: admin A proposes from the page; progress, then the report naming the missed confirmed hit first; admin B applies it', {
    timeout: 240_000,
  }, async () => {
    // A decided confirmed hit the proposal would miss: "Olaf Scholz" matches only the world leaders' PEP list.
    const analystApi = serviceClient(stack.url, analystKey);
    const scholz = (await analystApi.post('/screen', { name: 'Olaf Scholz', force: true })).body;
    const decided = await analystApi.post(`/screens/${scholz.screen_id}/dispose`, {
      disposition: 'confirmed_hit',
      note: 'The Chancellor, confirmed',
    });
    expect(decided.status).toBe(200);

    const { context, page } = await open();
    await signIn(page, adminKey);
    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    await page.getByText(/Version 0/).waitFor();
    await page.getByText('No proposal yet.').waitFor();
    await accessible(page, 'policy');
    const textarea = page.getByLabel('Proposed policy (JSON)');
    const inForce = JSON.parse(await textarea.inputValue());
    // A policy outside the bounds: the API's errors are shown per field.
    await textarea.fill(
      JSON.stringify({ ...inForce, screening: { ...inForce.screening, excluded_lists: ['ofac_sdn'] } }),
    );
    await page.getByRole('button', { name: 'Propose' }).click();
    await page.locator('#policy-errors li', { hasText: 'policy.screening.excluded_lists' }).waitFor();
    await textarea.fill(
      JSON.stringify({
        ...inForce,
        screening: { ...inForce.screening, excluded_lists: ['world_leaders_pep', 'intl_bodies_pep'] },
      }),
    );
    await page.getByRole('button', { name: 'Propose' }).click();
    const heading = page.getByRole('heading', { name: /^Policy proposal PRP-/, level: 1 });
    await heading.waitFor();
    const proposalId = (await heading.textContent())!.replace('Policy proposal ', '');
    const missed = page.getByRole('region', {
      name: 'Confirmed hits that would no longer alert',
      exact: true,
    });
    // Progress while the sandbox runs (this tenant's history holds the first test's 200-row batch:
    // seconds of replay), then the report. The page reads the proposal after the POST, so a replay
    // that finished first goes straight to the report: either is a right first view, nothing else is.
    const progress = page.getByRole('status').filter({ hasText: /^Replaying: \d+/ });
    await progress.or(missed).first().waitFor({ timeout: 180_000 });
    await missed.waitFor({ timeout: 180_000 });
    // The report's first section is the decided confirmed hits, and Olaf Scholz is named with a link to his screen.
    expect(await page.locator('main section h2').first().textContent()).toMatch(
      /^Decided confirmed hits that would no longer alert \(1\)/,
    );
    const link = missed.getByRole('link', { name: 'Olaf Scholz' });
    expect(await link.getAttribute('href')).toBe(`/console/screens/${scholz.screen_id}`);
    await page.getByRole('region', { name: 'Alerts gained and lost' }).waitFor();
    const report = (await serviceClient(stack.url, adminKey).get(`/settings/policy/proposals/${proposalId}`))
      .body;
    expect(await page.locator('code', { hasText: report.report_digest }).count()).toBe(1);
    // The author is offered no Apply (the API answers 403).
    await page.getByText('You proposed this policy; another admin must apply it.').waitFor();
    expect(await page.getByRole('button', { name: 'Apply' }).count()).toBe(0);
    await accessible(page, 'policy proposal, reported');
    await context.close();

    // Admin B applies it from the page; the policy in force is then version 1.
    const second = await open();
    await signIn(second.page, secondAdminKey, `/console/policy/${proposalId}`);
    await second.page.getByRole('button', { name: 'Apply' }).click();
    await second.page.getByText(`Applied by ${secondAdminId}`).waitFor();
    await second.page.getByText(/adopted as version 1\./).waitFor();
    expect(await second.page.getByRole('button', { name: 'Apply' }).count()).toBe(0);
    await accessible(second.page, 'policy proposal, applied');
    await second.page.getByRole('link', { name: 'Back to the policy' }).click();
    await second.page.getByText(/Version 1, adopted .* by /).waitFor();
    expect(await second.page.locator('main').textContent()).toContain(secondAdminId);
    const row = second.page
      .getByRole('region', { name: 'Policy proposals' })
      .locator('tr', { hasText: proposalId });
    expect(await row.textContent()).toMatch(/applied \(version 1\)/);
    expect((await serviceClient(stack.url, adminKey).get('/settings/policy')).body.version).toBe(1);
    await second.context.close();
  });

  it('every other page passes axe at 1280 and 390 px', async () => {
    const api = serviceClient(stack.url, analystKey);
    const screened = await api.post('/screen', { ...CRITICAL_SUBJECT, types: 'sanctions,pep' });
    expect(screened.status).toBe(200);
    const { context, page } = await open();
    await signIn(page, adminKey);
    const pages: [string, string | RegExp][] = [
      ['/console/queue', 'Alert queue'],
      ['/console/approvals', /Approvals|approval/i],
      [`/console/screens/${screened.body.screen_id}`, `Screen ${screened.body.screen_id}`],
      ['/console/clients', 'Clients'],
      ['/console/audit', 'Audit trail'],
      ['/console/batch', 'Batch screening'],
    ];
    for (const [path, heading] of pages) {
      await page.goto(`${stack.url}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
      await eventually(
        () => page.getByText(/^Loading/).count(),
        (loading) => loading === 0,
        30_000,
      );
      await accessible(page, path);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await accessible(page, 'sign-in');
    await context.close();
  });

  it('no request left the origin and no script failed on any page', () => {
    expect(offOrigin).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF), as a spreadsheet reads it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
