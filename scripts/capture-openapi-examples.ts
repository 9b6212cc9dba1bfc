/**
 * `npm run openapi:examples`: captures the examples of the OpenAPI document from real responses.
 * Starts the local stack (in-memory store, the shipped watchlists, demo tenants), makes the
 * README's requests and a few refusals, and writes each response body to lib/openapi/examples.json
 * by operation id and status (a stream's events as they arrived). Arrays are cut to their first
 * two items so the document stays readable; nothing else is changed. The keys in the examples
 * belong to a stack that no longer exists. test/openapi/document.test.ts checks every example
 * against its schema, so a captured example and the document cannot disagree; run this again (then
 * `npm run openapi`) when a response changes.
 */
import { writeFileSync } from 'node:fs';
import { startLocalStack } from '../infra/local/stack.ts';
import { EXAMPLES_FILE } from '../lib/openapi/file.ts';
import { SERVICE_POLICY } from '../lib/policy/policy.ts';
import { getServices } from '../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../lib/tenancy/key-lineage.ts';
import { addUser } from '../lib/tenancy/tenants.ts';

type Examples = Record<string, Record<string, unknown>>;

const ARRAY_ITEMS_KEPT = 2;
const shortened = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.slice(0, ARRAY_ITEMS_KEPT).map(shortened);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shortened(item)]));
  }
  return value;
};

const stack = await startLocalStack({ dataDir: null });
const examples: Examples = {};
const keyOf = (tenantId: string, role: 'admin' | 'analyst') => {
  const demo = stack.demoKeys.find((key) => key.tenant_id === tenantId && key.role === role);
  if (!demo) throw new Error(`no demo ${role} in ${tenantId}`);
  return demo.api_key;
};
const enterprise = stack.demoKeys.find((key) => key.plan === 'enterprise')!.tenant_id;
const admin = keyOf(enterprise, 'admin');
const analyst = keyOf(enterprise, 'analyst');

/** Sends a request, records its answer under the operation and status, and returns the body. */
async function call(
  operationId: string,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: the script reads arbitrary JSON answers
): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const stream = response.headers.get('content-type')?.startsWith('text/event-stream');
  const parsed = stream ? text : JSON.parse(text);
  examples[operationId] ??= {};
  examples[operationId][String(response.status)] ??= stream ? text : shortened(parsed);
  return parsed;
}

try {
  await call('health', 'GET', '/health', undefined);
  await call('me', 'GET', '/me', analyst);
  await call('me', 'GET', '/me', undefined);
  await call('dbstatus', 'GET', '/dbstatus', analyst);

  const putin = { name: 'Vladimir Putin', dob: '1952-10-07', nationality: 'Russian', types: 'sanctions,pep' };
  const screen = await call('screen', 'POST', '/screen', analyst, putin);
  await call('screen', 'POST', '/screen', analyst, { name: 'Jane Doe', dob: '1980-02-30' });
  await call('screens-list', 'GET', '/screens?limit=2', analyst);
  await call('screens-list', 'GET', '/screens?limit=500', analyst);
  await call('screens-pending', 'GET', '/screens/pending?limit=2', analyst);
  await call('screen-get', 'GET', `/screens/${screen.screen_id}`, analyst);
  await call('screen-get', 'GET', '/screens/SCR-20250314-000001', analyst);
  // A check cut to its strongest 10 ("Mohammed Ali": 11 sanctions matches), and the rest of it.
  const cut = await call('screen', 'POST', '/screen', analyst, { name: 'Mohammed Ali', types: 'sanctions' });
  await call('screen-matches', 'GET', `/screens/${cut.screen_id}/matches?check=sanctions&limit=2`, analyst);
  await call('screen-matches', 'GET', `/screens/${cut.screen_id}/matches?check=fraud`, analyst);
  await call('screen-matches', 'GET', `/screens/${cut.screen_id}/matches?check=pep`, analyst);
  await call('screen-matches', 'GET', '/screens/SCR-20250314-000001/matches', analyst);
  // Admins only (docs/api-decisions.md#screen-replay-is-for-admins).
  await call('screen-replay', 'POST', `/screens/${screen.screen_id}/replay`, admin);
  await call('screen-replay', 'POST', '/screens/SCR-20250314-000001/replay', admin);
  await call('screen-replay', 'POST', `/screens/${screen.screen_id}/replay`, analyst);
  const decision = {
    disposition: 'false_positive',
    note: 'DOB differs by 20 years',
    approval_requested: true,
  };
  await call('screen-dispose', 'POST', `/screens/${screen.screen_id}/dispose`, analyst, decision);
  await call('screen-dispose', 'POST', `/screens/${screen.screen_id}/dispose`, analyst, decision);
  await call('screen-history', 'GET', `/screens/${screen.screen_id}/history`, analyst);
  const doe = await call('screen', 'POST', '/screen', analyst, { name: 'Jane Doe', dob: '1980-02-29' });
  await call('screen-delete', 'DELETE', `/screens/${doe.screen_id}`, analyst);

  const client = await call('client-register', 'POST', '/clients', analyst, {
    name: 'Jane Doe',
    dob: '1980-02-29',
    reference: 'CUST-0001',
  });
  await call('client-register', 'POST', '/clients', analyst, { name: 'Jane Roe', reference: 'CUST-0001' });
  await call('clients-list', 'GET', '/clients?limit=2', analyst);
  await call('client-get', 'GET', `/clients/${client.client_id}`, analyst);
  await call('clients-screened', 'GET', '/clients/screened?limit=2', analyst);
  await call('clients-reviewed', 'GET', '/clients/reviewed?limit=2', analyst);
  const stopped = await call('client-register', 'POST', '/clients', analyst, { name: 'John Roe' });
  await call('client-stop', 'DELETE', `/clients/${stopped.client_id}`, analyst);
  await call('client-stop', 'DELETE', `/clients/${stopped.client_id}`, analyst);
  const run = await call('rescreen-trigger', 'POST', '/clients/rescreen/auto/trigger', analyst);
  await call('rescreen-run', 'GET', `/clients/rescreen/runs/${run.run_id}`, analyst);
  await call('rescreen-runs', 'GET', '/clients/rescreen/runs?limit=2', analyst);
  await call('alerts-list', 'GET', '/alerts?status=open,closed&limit=2', analyst);
  await call('alerts-list', 'GET', '/alerts?status=resolved', analyst);

  await call('users-list', 'GET', '/users', admin);
  await call('users-list', 'GET', '/users', analyst);
  const added = await call('user-add', 'POST', '/users', admin, { name: 'Ann Analyst' });
  await call('rotate-key', 'POST', '/me/rotate-key', added.api_key);
  await call('user-revoke-key', 'POST', `/users/${added.user.user_id}/revoke-key`, admin);
  await call('user-disable', 'POST', `/users/${added.user.user_id}/disable`, admin);
  await call('user-disable', 'POST', `/users/${added.user.user_id}/disable`, admin);
  await call('audit-list', 'GET', '/audit?limit=2', admin);

  // Webhooks: an endpoint on loopback (allowed locally), its test event delivered (or not: the log shows it).
  const hook = await call('webhook-create', 'POST', '/webhooks', admin, {
    url: 'http://127.0.0.1:9/hooks',
    events: ['monitoring.alert', 'screen.approved'],
    description: 'Case system',
  });
  await call('webhook-create', 'POST', '/webhooks', admin, {
    url: 'https://10.0.0.1/in',
    events: ['monitoring.alert'],
  });
  const hookId = hook.webhook.webhook_id;
  await call('webhooks-list', 'GET', '/webhooks', admin);
  await call('webhook-get', 'GET', `/webhooks/${hookId}`, admin);
  await call('webhook-update', 'PATCH', `/webhooks/${hookId}`, admin, {
    description: 'Case system (primary)',
  });
  await call('webhook-rotate-secret', 'POST', `/webhooks/${hookId}/rotate-secret`, admin, {
    overlap_hours: 24,
  });
  await call('webhook-test', 'POST', `/webhooks/${hookId}/test`, admin);
  let deliveries = await call('webhook-deliveries', 'GET', `/webhooks/${hookId}/deliveries`, admin);
  for (let i = 0; i < 50 && deliveries.deliveries.length === 0; i++) {
    await new Promise((done) => setTimeout(done, 200));
    delete examples['webhook-deliveries'];
    deliveries = await call('webhook-deliveries', 'GET', `/webhooks/${hookId}/deliveries`, admin);
  }
  await call(
    'webhook-replay',
    'POST',
    `/webhooks/${hookId}/deliveries/${deliveries.deliveries[0].delivery_id}/replay`,
    admin,
  );
  await call('webhook-delete', 'DELETE', `/webhooks/${hookId}`, admin);
  await call('webhook-get', 'GET', `/webhooks/${hookId}`, admin);

  // Tenant tuning (docs/policies.md): the policy in force; a namesake decided false positive,
  // remembered, listed, revoked.
  await call('policy-get', 'GET', '/settings/policy', analyst);
  const namesake = { name: 'Vladimir Putin', types: 'sanctions,pep', force: true };
  const decided = await call('screen', 'POST', '/screen', analyst, namesake);
  await call('screen-dispose', 'POST', `/screens/${decided.screen_id}/dispose`, analyst, {
    disposition: 'false_positive',
    note: 'Namesake: born 1987 in Tallinn',
  });
  await call('screen', 'POST', '/screen', analyst, namesake);
  const memories = await call('false-positives-list', 'GET', '/settings/false-positives?limit=2', admin);
  await call('false-positives-list', 'GET', '/settings/false-positives', analyst);
  const memoryId = memories.false_positives[0].memory_id;
  await call('false-positive-revoke', 'DELETE', `/settings/false-positives/${memoryId}`, admin);
  await call('false-positive-revoke', 'DELETE', `/settings/false-positives/${memoryId}`, admin);

  const subjects = [
    { name: 'Vladimir Putin', nationality: 'Russian' },
    { name: 'Jane Doe', dob: '1980-02-29', location: 'Leeds', alias: 'J. Doe' },
  ];
  const events: string = await call('batch-stream', 'POST', '/batch/stream', admin, {
    subjects,
    types: 'sanctions,pep',
  });
  await call('batch-stream', 'POST', '/batch/stream', admin, { subjects: [{ name: 'X' }] });
  const batchId = /"batch_id":"([^"]+)"/.exec(events)?.[1];
  await call('batch-reattach', 'GET', `/batch/${batchId}/events`, admin);
  await call('batches-list', 'GET', '/batch?limit=2', admin);
  await call('batch-get', 'GET', `/batch/${batchId}`, admin);
  await call('batch-get', 'GET', '/batch/BAT-20250314-6d92798d57', admin);
  await call('batch-clients-stream', 'POST', '/batch/clients/stream', admin, {
    subjects: [
      { name: 'Maria Example', dob: '1975-06-01', reference: 'CUST-0100' },
      { name: 'Omar Example', nationality: 'Egyptian', reference: 'CUST-0101' },
    ],
  });
  const starter = stack.demoKeys.find((key) => key.plan === 'starter')!;
  await call('batch-clients-stream', 'POST', '/batch/clients/stream', starter.api_key, {
    subjects: [{ name: 'Maria Example' }],
  });

  // A policy proposal (docs/policies.md): refused outside the bounds and for an analyst; its
  // sandbox replays the tenant's screens above; a second admin (added by operations, as four eyes
  // needs) applies it once the report exists. Near the end, so no screen above is under it.
  const reviewer = (
    await addUser(getServices().table, enterprise, {
      name: 'Second Admin',
      role: 'admin',
      issuer: OPERATIONS_ISSUER,
    })
  ).api_key;
  const proposed = {
    policy: {
      ...SERVICE_POLICY,
      screening: { ...SERVICE_POLICY.screening, excluded_lists: ['world_leaders_pep', 'intl_bodies_pep'] },
    },
  };
  await call('policy-propose', 'POST', '/settings/policy/proposals', admin, {
    policy: {
      ...SERVICE_POLICY,
      risk_bands: {
        ...SERVICE_POLICY.risk_bands,
        sanctions: { LOW: 'LOW', MEDIUM: 'MEDIUM', HIGH: 'MEDIUM', CRITICAL: 'CRITICAL' },
      },
    },
  });
  await call('policy-propose', 'POST', '/settings/policy/proposals', analyst, proposed);
  const proposal = await call('policy-propose', 'POST', '/settings/policy/proposals', admin, proposed);
  await call('policy-proposal-apply', 'POST', `${proposal.link}/apply`, admin);
  for (let waited = 0; waited < 120; waited += 1) {
    const read = await fetch(`${stack.url}${proposal.link}`, { headers: { 'x-api-key': admin } });
    if ((await read.json()).status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await call('policy-proposal-get', 'GET', proposal.link, admin);
  await call(
    'policy-proposal-get',
    'GET',
    '/settings/policy/proposals/PRP-20250314093000000-6d92798d',
    admin,
  );
  await call('policy-proposals-list', 'GET', '/settings/policy/proposals?limit=2', admin);
  await call('policy-proposals-list', 'GET', '/settings/policy/proposals', analyst);
  await call('policy-proposal-apply', 'POST', `${proposal.link}/apply`, reviewer);
  await call('policy-proposal-apply', 'POST', `${proposal.link}/apply`, reviewer);

  // Last, so the lock refuses none of the deletes above.
  await call('settings-get', 'GET', '/settings', admin);
  await call('settings-get', 'GET', '/settings', analyst);
  await call('settings-update', 'PATCH', '/settings', admin, { retention_lock: true });
  await call('settings-update', 'PATCH', '/settings', admin, { retention_days: 1825, retention_lock: true });
  await call('settings-update', 'PATCH', '/settings', admin, { retention_days: 365 });
} finally {
  await stack.close();
}

writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
console.log(`wrote ${EXAMPLES_FILE}: ${Object.values(examples).flatMap(Object.keys).length} examples`);
process.exit(0);
