import { beforeAll, describe, expect, it } from 'vitest';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

/**
 * Every error answers RFC 9457 problem details with a stable `code` beside its `detail`, and a
 * query parameter a route does not take is a 400 naming it, on every route (docs/api-guide.md#error-codes).
 */
const local = useLocalStack();
let analyst: string;
let admin: string;
let starter: string;
beforeAll(() => {
  analyst = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
  admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
  starter = demoKey(local.stack, 'tdemostarter', 'analyst').api_key;
});

describe('unknown query parameters', () => {
  it.each([
    ['/screens?risk=HIGH', 'risk', 'limit, cursor, risk_level'],
    ['/screens/pending?limit=5&riskLevel=HIGH', 'riskLevel', 'limit, cursor, risk_level'],
    ['/me?verbose=1', 'verbose', 'it takes none'],
    ['/clients?risk_level=HIGH&sort=name', 'sort', 'reference'],
    ['/audit?since=2026-01-01', 'since', 'limit, cursor'],
  ])('GET %s is a 400 naming %s and what the route takes', async (path, name, takes) => {
    const { status, body } = await local.api.get(path, admin);

    expect(status).toBe(400);
    expect(body.code).toBe('unknown_query_parameter');
    expect(body.detail).toMatch(new RegExp(`^${name}: is not a query parameter of this route`));
    expect(body.detail).toContain(takes);
  });

  it('names every unknown parameter of a request at once, and screens nothing on POST /screen', async () => {
    const before = (await local.api.get('/me', analyst)).body.usage.screens_used;

    const { status, body } = await local.api.post('/screen?dry_run=true&x=1', analyst, {
      name: madeUpName(),
    });

    expect(status).toBe(400);
    expect(body.detail).toMatch(/^dry_run, x: are not query parameters of this route \(it takes none\)/);
    expect((await local.api.get('/me', analyst)).body.usage.screens_used).toBe(before);
  });

  it('refuses them on routes without a key too, and on streamed routes', async () => {
    const health = await local.api.get('/health?probe=1');
    const stream = await local.api.post('/batch/stream?wait=1', admin, {
      subjects: [{ name: madeUpName() }],
    });

    expect(health).toMatchObject({ status: 400, body: { code: 'unknown_query_parameter' } });
    expect(stream.status).toBe(400);
    expect(stream.body.detail).toMatch(/^wait: is not a query parameter/);
  });

  it('still answers the parameters a route declares', async () => {
    const { status, body } = await local.api.get('/screens?limit=1', analyst);

    expect(status).toBe(200);
    expect(body.screens.length).toBeLessThanOrEqual(1);
  });
});

describe('problem details with a code', () => {
  it('a bad field: 400 invalid_request with type, title, status, detail and the path as instance', async () => {
    const { status, body } = await local.api.post('/screen', analyst, {
      name: 'Ann Smith',
      dob: '1970-02-30',
    });

    expect(status).toBe(400);
    expect(body).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      code: 'invalid_request',
      detail: expect.stringMatching(/^dob: /),
      instance: '/screen',
      errors: [{ field: 'dob', code: 'check', message: expect.stringMatching(/^must be a real date/) }],
    });
  });

  it.each([
    ['a body that is not JSON', () => local.api.post('/screen', analyst, '{"name":'), 400, 'invalid_json'],
    ['no key', () => local.api.get('/me'), 401, 'unauthorized'],
    ['an analyst listing users', () => local.api.get('/users', analyst), 403, 'forbidden'],
    [
      'a Starter tenant streaming a batch',
      () => local.api.post('/batch/stream', starter, { subjects: [{ name: 'Ann Smith' }] }),
      403,
      'plan_feature_required',
    ],
    ['an unknown screen', () => local.api.get('/screens/SCR-20260101-000001', analyst), 404, 'not_found'],
    ['an unknown path', () => local.api.get('/nowhere', analyst), 404, 'not_found'],
    ['another method', () => local.api.delete('/me', analyst), 405, 'method_not_allowed'],
    ['a cursor from elsewhere', () => local.api.get('/screens?cursor=abc', analyst), 400, 'invalid_cursor'],
  ])('%s: %s %s', async (_, call, status, code) => {
    const response = await call();

    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ type: 'about:blank', status, code, detail: expect.any(String) });
  });

  it('a second decision on a decided screen is already_disposed; approving one’s own is four_eyes_required', async () => {
    const screen = (await local.api.post('/screen', admin, { name: madeUpName() })).body;
    const path = `/screens/${screen.screen_id}/dispose`;
    await local.api.post(path, admin, { disposition: 'cleared', approval_requested: true });

    const again = await local.api.post(path, admin, { disposition: 'false_positive' });
    const own = await local.api.post(path, admin, { disposition: 'approved' });

    expect(again).toMatchObject({ status: 409, body: { code: 'already_disposed' } });
    expect(again.body.detail).toContain('override');
    expect(own).toMatchObject({ status: 403, body: { code: 'four_eyes_required' } });
  });
});
