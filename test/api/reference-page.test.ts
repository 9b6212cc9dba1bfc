import { readFileSync } from 'node:fs';
import { createServer, get, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../lib/api-docs/reference-page.ts';
import { type RouteDefinition, routes, SWAGGER_UI_FILES } from '../../lib/contract/routes.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { WEBHOOK_EVENT_TYPES } from '../../lib/webhooks/events.ts';
import { demoKey, useLocalServer } from '../support/api-client.ts';
import { CHROMIUM_ARGS, chromiumExecutable, missingChromium } from '../support/chromium.ts';
import { eventually } from '../support/eventually.ts';
import { sortedJson } from '../support/sorted-json.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const manifest: readonly RouteDefinition[] = routes;

const local = useLocalServer();

describe('GET /docs and its files', () => {
  it('serves the page without a key, with a policy that forbids every other origin', async () => {
    const response = await fetch(`${local.stack.url}/docs`);
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toMatch(/default-src 'none'/);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/https?:|\*|'unsafe-/);
    // Relative URLs only, so the page works under any base path.
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((url) => url.startsWith('/') || url.includes(':'))).toEqual([]);
  });

  it('serves each allow-listed file as it is in swagger-ui-dist, without a key; text gzipped when accepted', async () => {
    for (const file of SWAGGER_UI_FILES.files) {
      const source = readFileSync(join(repoRoot, SWAGGER_UI_FILES.from, file));
      const text = !file.endsWith('.png');

      const plain = await rawGet(`${local.stack.url}/docs/${file}`, {});
      const gzipped = await rawGet(`${local.stack.url}/docs/${file}`, {
        'accept-encoding': 'gzip, deflate, br',
      });
      const refused = await rawGet(`${local.stack.url}/docs/${file}`, { 'accept-encoding': 'gzip;q=0, br' });

      for (const response of [plain, gzipped, refused]) expect(response.status, file).toBe(200);
      expect(plain.headers['content-encoding'], file).toBeUndefined();
      expect(plain.body.equals(source), file).toBe(true);
      expect(refused.body.equals(source), file).toBe(true);
      expect(gzipped.headers['content-encoding'], file).toBe(text ? 'gzip' : undefined);
      expect((text ? gunzipSync(gzipped.body) : gzipped.body).equals(source), file).toBe(true);
      if (text) expect(gzipped.body.length, file).toBeLessThan(source.length / 3);
    }
    const starter = await fetch(`${local.stack.url}/docs/reference-page.js`);
    expect(starter.status).toBe(200);
    expect(starter.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await starter.text()).toContain('SwaggerUIBundle(');
  });

  it('answers 404 with a detail for any other name, the package’s other files included', async () => {
    for (const name of [
      'index.html',
      'swagger-ui-standalone-preset.js',
      'package.json',
      '..%2Fpackage.json',
      'x',
    ]) {
      const response = await fetch(`${local.stack.url}/docs/${name}`);
      const body = (await response.json()) as { detail?: string };

      expect(response.status, name).toBe(404);
      expect(body.detail, name).toMatch(/^No reference page file /);
    }
  });
});

/** A GET as it arrives: the bytes on the wire, not decompressed (fetch would decompress). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((done, fail) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', fail);
    }).on('error', fail);
  });
}

/**
 * A stand-in for an API Gateway base-path mapping (`https://api.example.com/v1/...`): strips the
 * prefix and forwards everything else unchanged.
 */
async function basePathProxy(target: string, prefix: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (!req.url?.startsWith(`${prefix}/`)) {
      res.writeHead(404).end();
      return;
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url.slice(prefix.length),
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forwarded);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`, server };
}

/** What a page asked for and complained about while it was open. */
function watch(page: Page) {
  const seen = { requests: [] as string[], errors: [] as string[], encodings: new Map<string, string>() };
  page.on('request', (req) => seen.requests.push(req.url()));
  page.on('response', (response) =>
    seen.encodings.set(response.url(), response.headers()['content-encoding'] ?? 'identity'),
  );
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  return seen;
}

/** *Authorize* with a key: the document's scheme puts it in the X-API-Key header. */
async function authorize(page: Page, key: string): Promise<void> {
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('code', { hasText: 'X-API-Key' }).waitFor();
  await dialog.locator('input#api_key_value').fill(key);
  await dialog.getByRole('button', { name: 'Apply credentials' }).click();
  await dialog.getByRole('button', { name: 'Close' }).click();
}

/** The operations the reference shows, as `METHOD /path`. */
async function operationsShown(page: Page): Promise<string[]> {
  await page.locator('.opblock').first().waitFor();
  return page
    .locator('.opblock .opblock-summary')
    .evaluateAll((summaries) =>
      summaries.map(
        (summary) =>
          `${summary.querySelector('.opblock-summary-method')?.textContent?.trim()} ${summary.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
}

/** The first individual of the UN Security Council list shipped in data/, as "FIRST SECOND". */
function firstUnDesignee(): string {
  const xml = readFileSync(join(repoRoot, 'data/sanctions/un/UN_consolidated.xml'), 'utf8');
  const individual =
    /<INDIVIDUAL>[\s\S]*?<FIRST_NAME>([^<]+)<\/FIRST_NAME>\s*<SECOND_NAME>([^<]+)<\/SECOND_NAME>/.exec(xml);
  if (!individual) throw new Error('no individual in the UN list');
  return `${individual[1]} ${individual[2]}`;
}

const executable = chromiumExecutable();

describe('the reference page in a browser', () => {
  if (!executable) {
    const reason = missingChromium('test/api/reference-page.test.ts');
    it('needs Chromium', (context) => context.skip(reason));
    return;
  }

  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => browser?.close());

  it('loads with no request leaving the service and shows every route of the manifest and every webhook event', async () => {
    const page = await browser.newPage();
    const seen = watch(page);

    await page.goto(`${local.stack.url}/docs`);
    const shown = await operationsShown(page);

    const events = WEBHOOK_EVENT_TYPES.map((type) => `POST ${type}`);
    expect(shown.sort()).toEqual(
      [...manifest.map((route) => `${route.method} ${route.path}`), ...events].sort(),
    );
    const origin = new URL(local.stack.url).origin;
    expect(seen.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(seen.requests).toEqual(
      expect.arrayContaining([
        `${origin}/docs/swagger-ui-bundle.js`,
        `${origin}/docs/swagger-ui.css`,
        `${origin}/openapi.json`,
      ]),
    );
    // A script, style or connection the policy refused would be a console error.
    expect(seen.errors).toEqual([]);
    expect(seen.encodings.get(`${origin}/docs/swagger-ui-bundle.js`)).toBe('gzip');

    // And the policy holds in the browser: a script on the page reaching for a CDN is refused
    // before any request is made.
    const refused = await page.evaluate(
      () =>
        new Promise<string>((settle) => {
          document.addEventListener('securitypolicyviolation', (event) => settle(event.effectiveDirective), {
            once: true,
          });
          fetch('https://cdn.example.com/swagger-ui-bundle.js').catch(() => undefined);
        }),
    );
    expect(refused).toBe('connect-src');
    expect(seen.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    await page.close();
  });

  it('expands an operation to what Swagger UI’s own OpenAPI 3.1 resolution gives, leaving the document as loaded', async () => {
    // The page resolves an expanded operation with Swagger UI's 3.0 resolver and puts back where
    // 3.1 differs (lib/api-docs/reference-page.ts): a description beside a $ref (Disposition's
    // carried_by, under POST /screen), extensions left as written (x-events, x-records), a
    // rewritten id (HEAD /health, a webhook), a schema of the Schemas section.
    const subtrees = [
      ['paths', '/screen', 'post'],
      ['paths', '/screens/export', 'get'],
      ['paths', '/batch/stream', 'post'],
      ['paths', '/health', 'head'],
      ['webhooks', 'screen.approved', 'post'],
      ['components', 'schemas', 'ScreenHistory'],
    ];
    const page = await browser.newPage();
    await page.goto(`${local.stack.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const compared = await page.evaluate(async (paths) => {
      type Resolved = { spec: unknown; errors: unknown[] };
      type Resolve = (spec: unknown, path: string[], options: object) => Promise<Resolved>;
      const system = (
        window as unknown as {
          ui: {
            getSystem(): {
              fn: { resolveSubtree: Resolve & { swaggerOwn?: Resolve } };
              specSelectors: { specJS(): unknown };
            };
          };
        }
      ).ui.getSystem();
      const spec = system.specSelectors.specJS();
      const before = JSON.stringify(spec);
      const resolve = system.fn.resolveSubtree;
      const own = resolve.swaggerOwn;
      if (!own) throw new Error('no fn.resolveSubtree.swaggerOwn: the page resolves with Swagger UI’s own');
      const pairs: [Resolved, Resolved][] = [];
      for (const path of paths) pairs.push([await own(spec, path, {}), await resolve(spec, path, {})]);
      return { pairs, unchanged: JSON.stringify(spec) === before };
    }, subtrees);
    const differ = subtrees.filter((_path, i) => {
      const [theirs, ours] = compared.pairs[i];
      return (
        sortedJson(theirs.spec) !== sortedJson(ours.spec) || theirs.errors.length + ours.errors.length > 0
      );
    });
    expect(differ).toEqual([]);
    expect(compared.unchanged).toBe(true);
    const screen = compared.pairs[0][1].spec as {
      responses: Record<
        string,
        { content: Record<string, { schema: { properties: Record<string, unknown> } }> }
      >;
    };
    const disposition = screen.responses['200'].content['application/json'].schema.properties.disposition as {
      anyOf: { properties: { carried_by: { description: string } } }[];
    };
    expect(disposition.anyOf[0].properties.carried_by.description).toMatch(
      /^On a decision the system carried forward/,
    );
    await page.close();
  });

  it('"Try it out" with a demo key screens a UN designee, and the key is still there after a reload', async () => {
    const key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
    const name = firstUnDesignee();
    const page = await browser.newPage();
    const seen = watch(page);
    await page.goto(`${local.stack.url}/docs`);
    await page.locator('.opblock').first().waitFor();

    await authorize(page, key);
    const screen = page
      .locator('.opblock-post')
      .filter({ has: page.locator('.opblock-summary-path[data-path="/screen"]') });
    await screen.locator('.opblock-summary').first().click();
    await screen.getByRole('button', { name: 'Try it out' }).click();
    await screen.locator('textarea.body-param__text').fill(JSON.stringify({ name, types: 'sanctions' }));
    await screen.getByRole('button', { name: 'Execute' }).click();

    const live = screen.locator('.live-responses-table tbody');
    await live.locator('.response-col_status').first().waitFor();
    expect((await live.locator('.response-col_status').first().textContent())?.trim()).toBe('200');
    const shown = JSON.parse(
      (await live.locator('.response-col_description .highlight-code pre').first().textContent()) ?? '',
    ) as { screen_id: string; risk_level: string; sanctions_result: { matches: { list_id: string }[] } };
    expect(shown.screen_id).toMatch(/^SCR-\d{8}-\d{6}$/);
    // A listed person is never CLEAR.
    expect(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']).toContain(shown.risk_level);
    expect(shown.sanctions_result.matches.map((match) => match.list_id)).toContain('un_sc');
    // The screen is real: the API returns it to the same key.
    expect((await local.api.get(`/screens/${shown.screen_id}`, key)).body.subject.name).toBe(name);

    await page.reload();
    await page.locator('.opblock').first().waitFor();
    await expect(page.locator('button.authorize').first().getAttribute('class')).resolves.toMatch(
      /\blocked\b/,
    );
    expect(seen.errors).toEqual([]);
    await page.close();
  });

  /**
   * Issue 39, item 8: `Try it out` on every operation of the reference page, as a reader would use
   * it: authorize with a key, open the operation, press `Try it out`, keep the request example the
   * document gives (body and query as written), press `Execute`: the answer is 2xx.
   *
   * Ids in a path are the one thing a reader supplies: an id belongs to a tenant, so the document
   * can give no id that exists for the reader's key (its path parameters carry no example). The test
   * makes each id first, through the API, with the key it authorizes with (a fresh enterprise
   * tenant's admin), and types it in the operation's path field as a reader would. Operations that
   * would stop later ones run last: applying a policy proposal (another admin's, already reported),
   * deleting the webhook, then rotating the key the page holds.
   */
  it('"Try it out" on every operation returns 2xx with its example', { timeout: 600_000 }, async () => {
    const { table } = getServices();
    const made = await createTenant(table, { name: 'Try It Out Bank', plan: 'enterprise' });
    const key = made.admin.api_key;
    const tenantId = made.tenant.tenant_id;
    const ids = await idsFor(local.stack.url, key, tenantId);

    const page = await browser.newPage();
    const seen = watch(page);
    await page.goto(`${local.stack.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    await authorize(page, key);

    const last = [
      'POST /settings/policy/proposals/{proposal_id}/apply',
      'DELETE /webhooks/{webhook_id}',
      'POST /me/rotate-key',
    ];
    const operations = manifest
      .map((route) => `${route.method} ${route.path}`)
      .sort((a, b) => last.indexOf(a) - last.indexOf(b));
    const answers: Record<string, string> = {};
    for (const operation of operations) {
      const [method, path] = operation.split(' ');
      const block = page
        .locator(`.opblock-${method.toLowerCase()}`)
        .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
        .first();
      await block.locator('.opblock-summary').first().click();
      // Swagger UI's own classes rather than role queries (no accessible-name walk per press, 53
      // operations in a row); the role queries are kept in the single-operation tests above.
      await block.locator('button.try-out__btn').click();
      for (const name of path.match(/(?<=\{)[^}]+(?=\})/g) ?? []) {
        const id = ids[`${operation}:${name}`] ?? ids[name];
        if (!id) throw new Error(`no id made for ${name} of ${operation}`);
        await block.locator(`tr[data-param-name="${name}"][data-param-in="path"] input`).fill(id);
      }
      await block.locator('button.execute').click();
      const status = block.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor({ timeout: 120_000 });
      answers[operation] = (await status.textContent())?.trim() ?? '';
      if (!/^2\d\d$/.test(answers[operation]))
        answers[operation] +=
          ` ${(await block.locator('.live-responses-table .response-col_description').first().textContent())?.slice(0, 300)}`;
      await block.locator('.opblock-summary').first().click();
    }
    expect(Object.entries(answers).filter(([, status]) => !/^2\d\d$/.test(status))).toEqual([]);
    expect(Object.keys(answers)).toHaveLength(manifest.length);
    expect(seen.errors.filter((error) => !/status of [45]\d\d/.test(error))).toEqual([]);
    await page.close();
  });

  it('works behind a base path: its files, the document and "Try it out" all stay under it', async () => {
    const proxy = await basePathProxy(local.stack.url, '/v1');
    try {
      const page = await browser.newPage();
      const seen = watch(page);
      await page.goto(`${proxy.url}/docs`);
      await operationsShown(page);

      const health = page
        .locator('.opblock-get')
        .filter({ has: page.locator('.opblock-summary-path[data-path="/health"]') });
      await health.locator('.opblock-summary').first().click();
      await health.getByRole('button', { name: 'Try it out' }).click();
      await health.getByRole('button', { name: 'Execute' }).click();
      await health.locator('.live-responses-table tbody .response-col_status').first().waitFor();

      expect(seen.requests).toEqual(
        expect.arrayContaining([
          `${proxy.url}/docs/swagger-ui-bundle.js`,
          `${proxy.url}/openapi.json`,
          `${proxy.url}/health`,
        ]),
      );
      expect(seen.requests.filter((url) => !url.startsWith(`${proxy.url}/`))).toEqual([]);
      expect(
        (
          await health.locator('.live-responses-table tbody .response-col_status').first().textContent()
        )?.trim(),
      ).toBe('200');
      expect(seen.errors).toEqual([]);
      await page.close();
    } finally {
      proxy.server.close();
    }
  });
});

/**
 * The ids the operations' paths need, made through the API with the admin's key: a screen for the
 * screen operations and another to delete, a remembered false positive, a client, two analysts
 * (one to disable, one whose key is reset), a rescreen run, a batch, and a webhook with a delivery.
 */
async function idsFor(url: string, key: string, tenantId: string): Promise<Record<string, string>> {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    // biome-ignore lint/suspicious/noExplicitAny: black-box set-up reads arbitrary JSON bodies
    return (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as any;
  };
  // Not the subject of the remembered false positive: a later decision on that subject (the
  // dispose example's needs_review) would replace the memory before its DELETE runs.
  const screen = await call('POST', '/screen', { name: 'Germain Katanga', types: 'sanctions' });
  const doomed = await call('POST', '/screen', { name: 'Jane Quillonby Doomed' });
  const remembered = await call('POST', '/screen', {
    name: 'Vladimir Putin',
    types: 'sanctions,pep',
    force: true,
  });
  await call('POST', `/screens/${remembered.screen_id}/dispose`, {
    disposition: 'false_positive',
    note: 'Namesake',
  });
  const memories = await call('GET', '/settings/false-positives');
  const client = await call('POST', '/clients', { name: 'Tryit Client Person', reference: 'TRY-0001' });
  const { table } = getServices();
  const disabled = await addUser(table, tenantId, {
    name: 'Dee Sabled',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  const reset = await addUser(table, tenantId, {
    name: 'Ree Set',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  const run = await call('POST', '/clients/rescreen/auto/trigger');
  const stream: string = await call('POST', '/batch/stream', { subjects: [{ name: 'Batch Tryit Person' }] });
  const batchId = /"batch_id":"(BAT-[^"]+)"/.exec(stream)?.[1];
  const webhook = await call('POST', '/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['lists.updated'],
  });
  const webhookId: string = webhook.webhook.webhook_id;
  await call('POST', `/webhooks/${webhookId}/test`);
  const deliveries = await eventually(
    () => call('GET', `/webhooks/${webhookId}/deliveries`),
    (body: { deliveries: { delivery_id: string }[] }) => body.deliveries.length > 0,
    30_000,
  );
  // A proposal another admin made, with its sandbox report: the page's admin may apply it.
  const proposer = await addUser(table, tenantId, {
    name: 'Pro Poser',
    role: 'admin',
    issuer: OPERATIONS_ISSUER,
  });
  const inForce = await call('GET', '/settings/policy');
  const proposed = await fetch(`${url}/settings/policy/proposals`, {
    method: 'POST',
    headers: { 'x-api-key': proposer.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ policy: inForce.policy }),
  });
  if (proposed.status !== 202) throw new Error(`proposal: ${proposed.status} ${await proposed.text()}`);
  const proposalId: string = (await proposed.json()).proposal_id;
  await eventually(
    () => call('GET', `/settings/policy/proposals/${proposalId}`),
    (body: { status: string }) => body.status === 'reported',
    60_000,
  );
  if (!batchId || memories.false_positives.length === 0) throw new Error('set-up made no batch or memory');
  return {
    screen_id: screen.screen_id,
    'DELETE /screens/{screen_id}:screen_id': doomed.screen_id,
    memory_id: memories.false_positives[0].memory_id,
    client_id: client.client_id,
    'POST /users/{user_id}/disable:user_id': disabled.user.user_id,
    'POST /users/{user_id}/revoke-key:user_id': reset.user.user_id,
    run_id: run.run_id,
    batch_id: batchId,
    webhook_id: webhookId,
    delivery_id: deliveries.deliveries[0].delivery_id,
    proposal_id: proposalId,
    asset: 'swagger-ui.css',
  };
}
