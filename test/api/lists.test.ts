/**
 * The API lists what a client must reconcile (issue 39, item 7): GET /batch, GET /batch/{id},
 * GET /batch/{id}/results, GET /clients/rescreen/runs and GET /alerts, through the local stack as a
 * client sees them: newest first, cursor paging, and another tenant's ids answered 404.
 */
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { scheduledRescreenRun } from '../support/scheduled-rescreen.ts';
import { clientListedAfterRegistration } from '../support/screen-before-listing.ts';
import { readEvents } from '../support/sse.ts';

const local = useLocalStack();

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
type Body = any;

async function freshTenant(name: string) {
  const { tenant, admin } = await createTenant(getServices().table, { name, plan: 'enterprise' });
  return { tenantId: tenant.tenant_id, admin: admin.api_key as string };
}

/** Runs a batch to its `complete` event and returns its id. */
async function batch(key: string, subjects: Record<string, string>[]): Promise<string> {
  const response = await fetch(`${local.stack.url}/batch/stream`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ subjects, types: 'sanctions,pep' }),
  });
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  expect(events.at(-1)?.event).toBe('complete');
  return String(events[0].data.batch_id);
}

/** Follows `next_cursor` to the end, collecting the rows under `field`. */
async function everyPage(path: string, key: string, field: string): Promise<Body[]> {
  const rows: Body[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const joiner = path.includes('?') ? '&' : '?';
    const { status, body } = await local.api.get(
      `${path}${cursor ? `${joiner}cursor=${encodeURIComponent(cursor)}` : ''}`,
      key,
    );
    expect(status).toBe(200);
    rows.push(...body[field]);
    cursor = body.next_cursor;
    if (!cursor) return rows;
  }
  throw new Error('too many pages');
}

describe('GET /batch and GET /batch/{id}', { timeout: 120_000 }, () => {
  it('lists the tenant’s batches newest first, page by page, and reads one back with its counts', async () => {
    const { admin } = await freshTenant('Lists batches');
    const other = await freshTenant('Lists other');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        await batch(admin, [{ name: 'Vladimir Putin', nationality: 'Russian' }, { name: madeUpName() }]),
      );
    }
    const otherBatch = await batch(other.admin, [{ name: madeUpName() }]);

    const listed = await everyPage('/batch?limit=2', admin, 'batches');
    expect(listed.map((row) => row.batch_id)).toEqual([...ids].reverse());
    expect(listed[0]).toMatchObject({
      purpose: 'screen',
      status: 'finished',
      total: 2,
      finished: 2,
      failed: 0,
      types: ['sanctions', 'pep'],
    });

    const one = await local.api.get(`/batch/${ids[0]}`, admin);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ batch_id: ids[0], status: 'finished', total: 2, queued: 0 });
    const counts = one.body.risk_counts as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(2);
    expect(counts.CLEAR).toBeGreaterThanOrEqual(1);

    // Another tenant's batch is not found (never 403), and never listed.
    expect((await local.api.get(`/batch/${otherBatch}`, admin)).status).toBe(404);
    expect((await local.api.get(`/batch/${otherBatch}/results`, admin)).status).toBe(404);
    expect((await local.api.get(`/batch/${ids[0]}`, other.admin)).status).toBe(404);
    expect((await everyPage('/batch', other.admin, 'batches')).map((row) => row.batch_id)).toEqual([
      otherBatch,
    ]);
    expect((await local.api.get('/batch/BAT-20250101-0000000000', admin)).status).toBe(404);
    expect((await local.api.get('/batch/not-a-batch', admin)).status).toBe(404);
    // A cursor of another tenant's list is refused.
    const page = (await local.api.get('/batch?limit=1', admin)).body;
    expect((await local.api.get(`/batch?cursor=${page.next_cursor}`, other.admin)).status).toBe(400);
  });

  it('answers every subject of a batch in request order as NDJSON, with the strongest match', async () => {
    const { admin } = await freshTenant('Lists results');
    const unknown = madeUpName();
    const id = await batch(admin, [{ name: unknown }, { name: 'Vladimir Putin', nationality: 'Russian' }]);

    const response = await fetch(`${local.stack.url}/batch/${id}/results?format=ndjson`, {
      headers: { 'x-api-key': admin },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const rows = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => [row.row, row.name, row.status])).toEqual([
      [1, unknown, 'screened'],
      [2, 'Vladimir Putin', 'screened'],
    ]);
    expect(rows[0]).toMatchObject({ risk_level: 'CLEAR', best_match: null, matches: 0 });
    expect(rows[1].best_match).toMatchObject({ name: expect.stringMatching(/PUTIN/i) });
    expect(rows[1].best_match.score).toBeGreaterThan(0.8);
    const screen = (await local.api.get(`/screens/${rows[1].screen_id}`, admin)).body;
    expect(rows[1].risk_level).toBe(screen.risk_level);
  });
});

describe('GET /clients/rescreen/runs', { timeout: 120_000 }, () => {
  it('lists the tenant’s runs newest first with their counts; another tenant sees none of them', async () => {
    const { admin } = await freshTenant('Lists runs');
    const other = await freshTenant('Lists runs other');
    await local.api.post('/clients', admin, { name: madeUpName(), rescreen_interval_days: 1 });
    const first = await scheduledRescreenRun(local.api, admin);
    const second = await scheduledRescreenRun(local.api, admin);

    const runs = await everyPage('/clients/rescreen/runs?limit=1', admin, 'runs');
    expect(runs.map((run) => run.run_id)).toEqual([second.run_id, first.run_id]);
    expect(runs[0]).toMatchObject({
      status: 'finished',
      trigger: 'schedule',
      queued: 1,
      finished: 1,
      failed: 0,
    });
    expect((await local.api.get('/clients/rescreen/runs', other.admin)).body.runs).toEqual([]);
    expect((await local.api.get(`/clients/rescreen/runs/${first.run_id}`, other.admin)).status).toBe(404);
  });
});

describe('GET /alerts', { timeout: 180_000 }, () => {
  it('lists each open alert once, on the client’s current screen, until a settled decision closes it', async () => {
    const { tenantId, admin } = await freshTenant('Lists alerts');
    const other = await freshTenant('Lists alerts other');
    const registered = await clientListedAfterRegistration(local.api, tenantId, admin);
    const before = new Date(Date.now() - 1000).toISOString();

    await scheduledRescreenRun(local.api, admin);
    const raisedOn = (await local.api.get(`/clients/${registered.client_id}`, admin)).body.last_screen_id;
    // Carried forward by the next run: still one open alert, now on the newer screen.
    await scheduledRescreenRun(local.api, admin);
    const carriedOn = (await local.api.get(`/clients/${registered.client_id}`, admin)).body.last_screen_id;
    expect(carriedOn).not.toBe(raisedOn);

    const open = await everyPage('/alerts', admin, 'alerts');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({
      screen_id: carriedOn,
      client_id: registered.client_id,
      status: 'open',
      origin: 'rescreen',
      disposition: null,
    });
    expect(open[0].raised_at >= before.slice(0, 19)).toBe(true);
    expect(await everyPage(`/alerts?since=${encodeURIComponent(before)}`, admin, 'alerts')).toHaveLength(1);
    expect(await everyPage('/alerts?since=2999-01-01', admin, 'alerts')).toHaveLength(0);
    expect(await everyPage('/alerts', other.admin, 'alerts')).toHaveLength(0);

    // needs_review does not settle it: still open.
    await local.api.post(`/screens/${carriedOn}/dispose`, admin, { disposition: 'needs_review' });
    expect((await everyPage('/alerts', admin, 'alerts')).map((row) => row.status)).toEqual(['open']);

    await local.api.post(`/screens/${carriedOn}/dispose`, admin, {
      disposition: 'confirmed_hit',
      override: true,
    });
    expect(await everyPage('/alerts', admin, 'alerts')).toHaveLength(0);
    const closed = await everyPage('/alerts?status=closed', admin, 'alerts');
    expect(closed.map((row) => [row.screen_id, row.status])).toEqual([[carriedOn, 'closed']]);
    expect(closed[0].disposition.disposition).toBe('confirmed_hit');

    const bad = await local.api.get('/alerts?status=resolved', admin);
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^status: /);
  });
});
