import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Table } from '../../lib/store/table.ts';
import { authenticate } from '../../lib/tenancy/auth.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

/** The table as authenticate sees it, recording each store request it makes (kind, keys, options). */
function recordingTable(table: Table, requests: string[]): Table {
  const send = (command: { constructor: { name: string }; input: unknown }) => {
    requests.push(`${command.constructor.name} ${shape(command.input)}`);
    return table.doc.send(command as never);
  };
  return { ...table, doc: { send } as unknown as Table['doc'] };
}

/** A request's shape without the ids in it: which keys, how many, with which options. */
function shape(input: unknown): string {
  return JSON.stringify(input, (key, value) =>
    (key === 'pk' || key === 'sk') && typeof value === 'string' ? value.replace(/#.*/, '#…') : value,
  );
}

describe('authenticate: nothing tells a caller whether a tenant or user exists', () => {
  it('does the very same store work for a real tenant, an unknown tenant, an unknown user and a wrong secret', async () => {
    const { tenant, admin } = await createTenant(store.table, { name: 'Oracle Bank', plan: 'growth' });
    const secret = admin.api_key.split('.')[2];
    const keys = {
      real: admin.api_key,
      wrongSecret: `isk_${tenant.tenant_id}.${admin.user.user_id}.${'A'.repeat(secret.length)}`,
      unknownUser: `isk_${tenant.tenant_id}.unobodyatall.${secret}`,
      unknownTenant: `isk_tnosuchtenant.${admin.user.user_id}.${secret}`,
    };

    const requests: Record<string, string[]> = {};
    const outcomes: Record<string, string> = {};
    // Twice each: a second call must not be answered from a cache that only real tenants fill.
    for (const round of [1, 2]) {
      for (const [name, key] of Object.entries(keys)) {
        const made: string[] = [];
        outcomes[name] = await authenticate(recordingTable(store.table, made), key).then(
          (principal) => principal.tenantId,
          (error) => error.name,
        );
        requests[`${name} ${round}`] = made;
      }
    }

    expect(outcomes).toEqual({
      real: tenant.tenant_id,
      wrongSecret: 'UnauthorizedError',
      unknownUser: 'UnauthorizedError',
      unknownTenant: 'UnauthorizedError',
    });
    const reference = requests['real 1'];
    expect(reference.length).toBeGreaterThan(0);
    for (const made of Object.values(requests)) expect(made).toEqual(reference);
  });
});
