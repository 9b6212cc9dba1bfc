import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN_SECRET_ENV, ORIGIN_VERIFY_HEADER } from '../../lib/http/origin-verify.ts';
import { demoKey, useLocalStack } from '../support/api-client.ts';

/**
 * Issue 21, failure 5: the execute-api endpoint answered anyone, around CloudFront and its WAF.
 * The deployed functions now refuse a request without CloudFront's origin secret; here the real
 * pipeline runs on the local stack with the secret configured as in Lambda, and the AWS Parameters
 * and Secrets extension it reads the secret from is played by a loopback server speaking the
 * extension's HTTP interface (GET /secretsmanager/get, the session token in a header).
 */
const local = useLocalStack();

const SESSION_TOKEN = 'session-token-for-the-extension';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:111122223333:secret:OriginSecret-abc';
const stages: Record<string, string> = {
  AWSCURRENT: 'current-value-0123456789',
  AWSPREVIOUS: 'previous-value-987',
};
const asked: string[] = [];
let extension: Server;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  extension = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const stage = url.searchParams.get('versionStage') ?? 'AWSCURRENT';
    asked.push(stage);
    const value = stages[stage];
    const authorised = req.headers['x-aws-parameters-secrets-token'] === SESSION_TOKEN;
    const known = url.pathname === '/secretsmanager/get' && url.searchParams.get('secretId') === SECRET_ARN;
    res.writeHead(authorised && known && value ? 200 : authorised ? 400 : 401, {
      'content-type': 'application/json',
    });
    res.end(JSON.stringify(value ? { ARN: SECRET_ARN, SecretString: value, VersionStages: [stage] } : {}));
  });
  await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', resolve));
  for (const name of [ORIGIN_SECRET_ENV, 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', 'AWS_SESSION_TOKEN'])
    saved[name] = process.env[name];
  process.env[ORIGIN_SECRET_ENV] = SECRET_ARN;
  process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String((extension.address() as AddressInfo).port);
  process.env.AWS_SESSION_TOKEN = SESSION_TOKEN;
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise((resolve) => extension.close(resolve));
});

const usersWith = (headers: Record<string, string>, key?: string) =>
  fetch(`${local.stack.url}/users`, { headers: { ...(key ? { 'x-api-key': key } : {}), ...headers } });

describe('the API answers only requests that came through CloudFront', () => {
  it('refuses a request without the origin header with 403 and a detail, before the API key is even looked at', async () => {
    const admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
    const direct = await usersWith({}, admin);
    expect(direct.status).toBe(403);
    const body = (await direct.json()) as { detail: string };
    expect(body.detail).toMatch(/CloudFront URL/);
    // Without a key it is still 403, not 401: the origin check runs first.
    expect((await usersWith({})).status).toBe(403);
    expect(asked).toContain('AWSCURRENT');
  });

  it('refuses a wrong value (even one sharing a prefix) without echoing it', async () => {
    const admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
    for (const guess of ['current-value-012345678', `${stages.AWSCURRENT}x`, 'wrong']) {
      const response = await usersWith({ [ORIGIN_VERIFY_HEADER]: guess }, admin);
      expect(response.status, guess).toBe(403);
      expect(await response.text()).not.toContain(guess);
    }
  });

  it('lets CloudFront’s current value through, and the previous one while a rotation reaches every edge', async () => {
    const admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
    const current = await usersWith({ [ORIGIN_VERIFY_HEADER]: stages.AWSCURRENT }, admin);
    expect(current.status).toBe(200);
    expect(((await current.json()) as { users: unknown[] }).users.length).toBeGreaterThan(0);
    expect((await usersWith({ [ORIGIN_VERIFY_HEADER]: stages.AWSPREVIOUS }, admin)).status).toBe(200);
    // Through the header, the rest of the pipeline is as before: a missing key is 401 again.
    expect((await usersWith({ [ORIGIN_VERIFY_HEADER]: stages.AWSCURRENT })).status).toBe(401);
  });

  it('checks nothing where no secret is configured (npm start, every other test)', async () => {
    const admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
    delete process.env[ORIGIN_SECRET_ENV];
    try {
      expect((await usersWith({}, admin)).status).toBe(200);
    } finally {
      process.env[ORIGIN_SECRET_ENV] = SECRET_ARN;
    }
  });
});
