import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { demoKey } from '../screening/http-client.ts';

let stack: LocalStack;
let keys: string[];
let screenId: string;
beforeAll(async () => {
  stack = await startLocalStack({ dataDir: null });
  keys = [
    demoKey(stack, 'tdemoenterprise', 'analyst').api_key,
    demoKey(stack, 'tdemoenterprise', 'admin').api_key,
  ];
  const response = await fetch(`${stack.url}/screen`, {
    method: 'POST',
    headers: { 'x-api-key': keys[0] },
    body: JSON.stringify({ name: 'Fuzz Subject Quillonby' }),
  });
  screenId = (await response.json()).screen_id;
}, 60_000);
afterAll(async () => stack.close());

const fieldNames = [
  'name',
  'dob',
  'nationality',
  'location',
  'alias',
  'types',
  'force',
  'disposition',
  'note',
  'override',
  'approval_requested',
];
const jsonish = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '1990-02-29',
    '2024-02-29',
    '9999-12-31',
    'sanctions,pep',
    'approved',
    'cleared',
    'pep,,pep',
    '',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);
const objectBody = fc.dictionary(
  fc.oneof(fc.constantFrom(...fieldNames), fc.string({ maxLength: 12 })),
  jsonish,
  {
    maxKeys: 6,
  },
);
const rawBody = fc.oneof(
  objectBody.map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '[]', 'null', '{"name":', '\u0000', '{"name":"\\ud800"}'),
);
const pathSegment = fc.oneof(
  fc.constantFrom('SCR-20000101-000001', 'pending', '..', '%', '%2F', 'SCR-99999999-999999999999', ''),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constant('__screen__'),
);
const path = fc.oneof(
  fc.constant('/screen'),
  fc
    .tuple(pathSegment, fc.constantFrom('', '/history', '/dispose', '/x'))
    .map(([id, tail]) => `/screens/${id}${tail}`),
  fc
    .tuple(
      fc.constantFrom('/screens', '/screens/pending'),
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 20 }),
    )
    .map(
      ([p, limit, cursor]) => `${p}?limit=${encodeURIComponent(limit)}&cursor=${encodeURIComponent(cursor)}`,
    ),
);
const apiKey = fc.oneof(
  fc.constantFrom('valid-analyst', 'valid-admin', 'none'),
  fc.string({ maxLength: 80 }).filter((k) => /^[\x21-\x7e]*$/.test(k)),
);

describe('random and malformed requests', () => {
  it('never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
        path,
        rawBody,
        apiKey,
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined),
        async (method, requestPath, body, key, contentType) => {
          const headers: Record<string, string> = {};
          if (key === 'valid-analyst') headers['x-api-key'] = keys[0];
          else if (key === 'valid-admin') headers['x-api-key'] = keys[1];
          else if (key !== 'none') headers['x-api-key'] = key;
          if (contentType) headers['content-type'] = contentType;
          const response = await fetch(`${stack.url}${requestPath.replace('__screen__', screenId)}`, {
            method,
            headers,
            body: method === 'GET' ? undefined : body,
          });
          const text = await response.text();
          expect(response.status, `${method} ${requestPath} ${body} → ${text}`).toBeLessThan(500);
          expect(JSON.parse(text)).toEqual(expect.any(Object));
        },
      ),
      { numRuns: 200 },
    );
  }, 120_000);
});
