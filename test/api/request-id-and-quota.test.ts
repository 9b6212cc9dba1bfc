import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { symbols } from 'pino';
import { describe, expect, it } from 'vitest';
import { logger, loggingAs } from '../../lib/common/log.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { chargeScreens } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(`${local.stack.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** The seconds in the UTC calendar month of `at`, and those left until it ends. */
function monthSeconds(at: Date) {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  const end = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return { window: (end - start) / 1000, left: (end - at.getTime()) / 1000 };
}

/** `"monthly";r=<remaining>;t=<reset>` read back into numbers. */
function remainingOf(response: Response) {
  const match = /^"monthly";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
  if (!match) throw new Error(`no RateLimit field: ${response.headers.get('ratelimit')}`);
  return { remaining: Number(match[1]), reset: Number(match[2]) };
}

async function starterTenant(used: number) {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: `Headers Test ${used}`, plan: 'starter' });
  if (used > 0) await chargeScreens(table, tenant.tenant_id, used, 1000);
  return admin.api_key;
}

describe('X-Request-Id', () => {
  it('echoes a well-formed caller id', async () => {
    const id = 'client-7f3a.retry:2_of_3';

    const response = await call('GET', '/health', { 'x-request-id': id });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['spaces', 'two words'],
    ['a quote', 'id"injected'],
    ['129 characters', 'a'.repeat(129)],
    ['non-ASCII letters', 'café'],
  ])('replaces a caller id with %s by a fresh one', async (_label, id) => {
    const response = await call('GET', '/health', { 'x-request-id': id });

    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('gives every request its own id when the caller sends none', async () => {
    const [a, b] = await Promise.all([call('GET', '/health'), call('GET', '/health')]);

    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('is on a 401, with no quota fields (nobody is known to charge)', async () => {
    const response = await call('POST', '/screen', { 'x-request-id': 'req-401' }, { name: 'A Person' });

    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('req-401');
    expect(response.headers.get('ratelimit')).toBeNull();
    expect(response.headers.get('quota-unlimited')).toBeNull();
  });

  it('is on a 404 of an unknown path and of an unknown screen', async () => {
    const key = demoKey(local.stack, 'tdemostarter', 'analyst').api_key;

    const noRoute = await call('GET', '/no/such/route', { 'x-request-id': 'req-404a' });
    const noScreen = await call('GET', '/screens/SCR-20260101-999999', {
      'x-request-id': 'req-404b',
      'x-api-key': key,
    });

    expect(noRoute.status).toBe(404);
    expect(noRoute.headers.get('x-request-id')).toBe('req-404a');
    expect(noScreen.status).toBe(404);
    expect(noScreen.headers.get('x-request-id')).toBe('req-404b');
    expect(remainingOf(noScreen).remaining).toBeLessThanOrEqual(1000);
  });
});

describe('quota headers', () => {
  it('state the Starter quota, the month as the window and what remains on an authenticated 200', async () => {
    const key = await starterTenant(40);

    const response = await call('GET', '/me', { 'x-api-key': key });
    const now = new Date();

    expect(response.status).toBe(200);
    const { window, left } = monthSeconds(now);
    expect(response.headers.get('ratelimit-policy')).toBe(`"monthly";q=1000;w=${window}`);
    const { remaining, reset } = remainingOf(response);
    expect(remaining).toBe(960);
    expect(reset).toBeGreaterThan(0);
    expect(Math.abs(reset - left)).toBeLessThanOrEqual(5);
    expect(response.headers.get('quota-unlimited')).toBeNull();
  });

  it('count down with each screen, on the screen response itself', async () => {
    const key = await starterTenant(0);

    const first = await call('POST', '/screen', { 'x-api-key': key }, { name: madeUpName() });
    const second = await call('POST', '/screen', { 'x-api-key': key }, { name: madeUpName() });

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(remainingOf(first).remaining).toBe(999);
    expect(remainingOf(second).remaining).toBe(998);
  });

  it('show nothing remaining on the 429 of a spent month', async () => {
    const key = await starterTenant(1000);

    const response = await call('POST', '/screen', { 'x-api-key': key }, { name: madeUpName() });

    expect(response.status).toBe(429);
    expect(remainingOf(response).remaining).toBe(0);
  });

  it('are on a streamed batch too, with the whole batch already counted', async () => {
    const { admin } = await createTenant(getServices().table, { name: 'Headers Growth', plan: 'growth' });
    const subjects = [{ name: madeUpName() }, { name: madeUpName() }];

    const response = await call(
      'POST',
      '/batch/stream',
      { 'x-api-key': admin.api_key, 'x-request-id': 'batch-req-1' },
      { subjects },
    );
    const events = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('batch-req-1');
    expect(response.headers.get('ratelimit-policy')).toMatch(/^"monthly";q=5000;w=\d+$/);
    expect(remainingOf(response).remaining).toBe(4998);
    expect(events).toContain('event: complete');
  });

  it('say an Enterprise plan is unlimited instead of stating a quota', async () => {
    const key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;

    const response = await call('POST', '/screen', { 'x-api-key': key }, { name: madeUpName() });

    expect(response.status).toBe(200);
    expect(response.headers.get('quota-unlimited')).toBe('?1');
    expect(response.headers.get('ratelimit-policy')).toBeNull();
    expect(response.headers.get('ratelimit')).toBeNull();
  });
});

/** The JSON log lines every logger writes while `work` runs (at debug level, so none is filtered). */
async function capturingLogs(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const stream = (logger as unknown as Record<symbol, { write(line: string): boolean }>)[symbols.streamSym];
  const { write } = stream;
  const { level } = logger;
  const lines: string[] = [];
  stream.write = (line: string) => lines.push(line) > 0;
  logger.level = 'debug';
  try {
    await work();
  } finally {
    stream.write = write;
    logger.level = level;
  }
  return lines.map((line) => JSON.parse(line));
}

describe('request id in the logs', () => {
  it('is on every line logged while requests are served, and on lines of the code below the pipeline', async () => {
    const key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
    // The scheduled jobs first (the webhook outbox drain among them), so that events left by the
    // tests above are not drained, and logged with no request, while the lines are captured.
    await local.stack.scheduler.tick();

    const lines = await capturingLogs(async () => {
      await call(
        'POST',
        '/screen',
        { 'x-api-key': key, 'x-request-id': 'log-check-1' },
        { name: madeUpName() },
      );
      await call('GET', '/screens/SCR-20000101-000001', { 'x-api-key': key, 'x-request-id': 'log-check-2' });
      await loggingAs('log-check-3', async () =>
        logger.warn({ tenant: 'tdemoenterprise' }, 'a line from lib/'),
      );
    });

    expect(
      lines.filter((line) => line.msg === 'request').map((line) => [line.requestId, line.status]),
    ).toEqual([
      ['log-check-1', 200],
      ['log-check-2', 404],
    ]);
    expect(lines.find((line) => line.msg === 'a line from lib/')?.requestId).toBe('log-check-3');
    expect(
      lines.filter((line) => !['log-check-1', 'log-check-2', 'log-check-3'].includes(String(line.requestId))),
    ).toEqual([]);
  });
});

describe('a 500', () => {
  // Last in the file: it removes this file's own in-memory table to make the store fail.
  it('names the request id in its body and its header', async () => {
    const key = demoKey(local.stack, 'tdemostarter', 'analyst').api_key;
    const { table } = getServices();
    await table.doc.send(new DeleteTableCommand({ TableName: table.name }));

    const response = await call('GET', '/me', { 'x-api-key': key, 'x-request-id': 'req-500-abc' });

    expect(response.status).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('req-500-abc');
    expect((await response.json()).detail).toContain('req-500-abc');
  });
});
