import fc from 'fast-check';
import { type RouteDefinition, routes } from '../../lib/contract/routes.ts';

/**
 * Generated requests for every route of the manifest: its own method or another, its path with
 * each `{param}` replaced by a real id of the caller's tenant, another tenant's id, or a malformed
 * one, query strings, headers and bodies of every shape (valid-looking fields with wrong values,
 * unknown fields, JSON that is not an object, text that is not JSON). Used by `npm run fuzz`
 * (scripts/fuzz.ts, 10,000 requests) and by a smaller seeded slice in CI
 * (test/api/fuzz.test.ts).
 */

/** Ids the requests may name: real ones of the caller's tenant and of another tenant. */
export interface FuzzIds {
  screen: string;
  client: string;
  batch: string;
  run: string;
  user: string;
  otherTenantScreen: string;
}

export interface FuzzKeys {
  analyst: string;
  admin: string;
  /** A key of another tenant. */
  other: string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const FIELD_NAMES = [
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
  'approves_version',
  'reference',
  'rescreen_interval_days',
  'subjects',
  'role',
  'user_name',
  'email',
];

const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    'Vladimir Putin',
    '1990-02-29',
    '2024-02-29',
    '9999-12-31',
    'sanctions,pep',
    'approved',
    'cleared',
    'confirmed_hit',
    'analyst',
    'admin',
    '\u200b\u200b',
    '\u202eevil',
    '😀😀',
    '𝔄𝔩𝔦',
    '',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
  fc.array(fc.record({ name: fc.string({ maxLength: 20 }) }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

const objectBody = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 12 })),
  value,
  {
    maxKeys: 6,
  },
);

const body = fc.oneof(
  objectBody.map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '[]', 'null', '{"name":', '\u0000', '{"name":"\\ud800"}', '{"subjects":[]}'),
  fc.constant(undefined),
);

const malformedId = fc.oneof(
  fc.constantFrom(
    'SCR-20000101-000001',
    'CLI-20000101-000000000-000000',
    'BAT-20000101-0000000000',
    'RUN-20000101-0000000000',
  ),
  fc.constantFrom('..', '%2F', '%00', 'x'.repeat(1100), '', 'null', '-1'),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
);

function paramValue(param: string, ids: FuzzIds): fc.Arbitrary<string> {
  const own: Record<string, string> = {
    screen_id: ids.screen,
    client_id: ids.client,
    batch_id: ids.batch,
    run_id: ids.run,
    user_id: ids.user,
  };
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(own[param] ?? 'unknown') },
    { weight: 1, arbitrary: fc.constant(ids.otherTenantScreen) },
    { weight: 2, arbitrary: malformedId },
  );
}

function pathOf(route: RouteDefinition, ids: FuzzIds): fc.Arbitrary<string> {
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const query = fc.oneof(
    fc.constant(''),
    fc
      .tuple(
        fc.constantFrom('limit', 'cursor', 'risk_level', 'reference', 'types', 'x'),
        fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('0', '-1', '1000', '25', 'HIGH', 'zzz')),
      )
      .map(([name, v]) => `?${name}=${encodeURIComponent(v)}`),
  );
  const suffix = fc.constantFrom('', '', '', '/', '/x', '//');
  return fc
    .tuple(fc.tuple(...params.map((param) => paramValue(param, ids))), suffix, query)
    .map(([values, tail, q]) => {
      let path = route.path;
      params.forEach((param, i) => {
        path = path.replace(`{${param}}`, values[i]);
      });
      return `${path}${tail}${q}`;
    });
}

export function fuzzRequest(ids: FuzzIds, keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const routeArb = fc.constantFrom(...routes);
  const key = fc.oneof(
    fc.constantFrom(keys.analyst, keys.admin, keys.other, undefined),
    fc.string({ maxLength: 80 }).filter((k) => /^[\x21-\x7e]*$/.test(k)),
  );
  const headers = fc
    .record(
      {
        key,
        contentType: fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          undefined,
        ),
        requestId: fc.oneof(
          fc.constant(undefined),
          fc.string({ maxLength: 80 }).filter((k) => /^[\x21-\x7e]*$/.test(k)),
        ),
        idempotencyKey: fc.oneof(
          fc.constant(undefined),
          fc.string({ maxLength: 300 }).filter((k) => /^[\x21-\x7e]*$/.test(k)),
        ),
      },
      { requiredKeys: [] },
    )
    .map((h) => {
      const out: Record<string, string> = {};
      if (h.key) out['x-api-key'] = h.key;
      if (h.contentType) out['content-type'] = h.contentType;
      if (h.requestId) out['x-request-id'] = h.requestId;
      if (h.idempotencyKey) out['idempotency-key'] = h.idempotencyKey;
      return out;
    });
  return routeArb.chain((route) =>
    fc.record({
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constant(route.method as string) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
      ),
      path: pathOf(route, ids),
      headers,
      body,
    }),
  );
}

export interface FuzzOutcome {
  requests: number;
  byStatusClass: Record<string, number>;
  /** Requests that broke a rule: a 5xx, or a 4xx without a JSON `detail`. */
  violations: { request: FuzzRequest; status: number; body: string }[];
}

/** Sends one request and checks the rules; a stream's body is not read past its headers. */
export async function sendFuzzRequest(
  baseUrl: string,
  request: FuzzRequest,
  outcome: FuzzOutcome,
): Promise<void> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
  });
  outcome.requests += 1;
  const statusClass = `${String(response.status)[0]}xx`;
  outcome.byStatusClass[statusClass] = (outcome.byStatusClass[statusClass] ?? 0) + 1;
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    await response.body?.cancel();
    return;
  }
  const text = await response.text();
  let detailed = false;
  try {
    detailed = typeof (JSON.parse(text) as { detail?: unknown }).detail === 'string';
  } catch {
    detailed = false;
  }
  const broken = response.status >= 500 || (response.status >= 400 && request.method !== 'HEAD' && !detailed);
  if (broken) outcome.violations.push({ request, status: response.status, body: text.slice(0, 300) });
}

/**
 * The ids and keys the requests use, made through the API of a running local server: a screen, a
 * client, a finished batch and a rescreen run of the Enterprise demo tenant, its analyst's user
 * id, and a screen of the Starter demo tenant (another tenant's id must be a 404 everywhere).
 */
export async function fuzzTargets(
  baseUrl: string,
  demoKeys: readonly { tenant_id: string; role: string; api_key: string }[],
): Promise<{ ids: FuzzIds; keys: FuzzKeys }> {
  const keyOf = (tenant: string, role: string) => {
    const found = demoKeys.find((k) => k.tenant_id === tenant && k.role === role);
    if (!found) throw new Error(`no demo ${role} key for ${tenant}`);
    return found.api_key;
  };
  const keys = {
    analyst: keyOf('tdemoenterprise', 'analyst'),
    admin: keyOf('tdemoenterprise', 'admin'),
    other: keyOf('tdemostarter', 'admin'),
  };
  const call = async (path: string, key: string, method = 'GET', body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text;
  };
  const json = async (path: string, key: string, method = 'GET', body?: unknown) =>
    JSON.parse(await call(path, key, method, body)) as Record<string, unknown>;
  const screen = await json('/screen', keys.analyst, 'POST', { name: 'Fuzz Subject Quillonby' });
  const client = await json('/clients', keys.analyst, 'POST', { name: 'Fuzz Client Quillonby' });
  const stream = await call('/batch/stream', keys.analyst, 'POST', {
    subjects: [{ name: 'Fuzz Batch Quillonby' }],
  });
  const batch = /"batch_id":"(BAT-[^"]+)"/.exec(stream)?.[1];
  const run = await json('/clients/rescreen/auto/trigger', keys.admin, 'POST');
  const me = await json('/me', keys.analyst);
  const other = await json('/screen', keys.other, 'POST', { name: 'Fuzz Other Quillonby' });
  if (!batch) throw new Error(`no batch id in the stream: ${stream.slice(0, 200)}`);
  return {
    keys,
    ids: {
      screen: String(screen.screen_id),
      client: String(client.client_id),
      batch,
      run: String(run.run_id),
      user: String((me.user as { user_id: string }).user_id),
      otherTenantScreen: String(other.screen_id),
    },
  };
}

/** Runs `runs` generated requests (seeded), `concurrency` at a time, and reports what they met. */
export async function fuzzServer(
  baseUrl: string,
  targets: { ids: FuzzIds; keys: FuzzKeys },
  options: { runs: number; seed: number; concurrency?: number },
): Promise<FuzzOutcome> {
  const requests = fc.sample(fuzzRequest(targets.ids, targets.keys), {
    numRuns: options.runs,
    seed: options.seed,
  });
  const outcome: FuzzOutcome = { requests: 0, byStatusClass: {}, violations: [] };
  let next = 0;
  const lane = async () => {
    while (next < requests.length) await sendFuzzRequest(baseUrl, requests[next++], outcome);
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, lane));
  return outcome;
}
