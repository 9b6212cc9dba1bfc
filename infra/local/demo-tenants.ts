import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Table } from '../../lib/store/table.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import type { PlanId } from '../../lib/tenancy/plans.ts';
import type { Role } from '../../lib/tenancy/roles.ts';
import { addUser, createTenant, getTenant } from '../../lib/tenancy/tenants.ts';

export interface DemoKey {
  tenant_id: string;
  tenant: string;
  plan: PlanId;
  user_id: string;
  user: string;
  role: Role;
  api_key: string;
}

/** The demo tenants (docs/api-decisions.md#demo-tenants): an Enterprise tenant with an admin and two analysts, a Starter tenant with an admin and an analyst. */
const DEMO_TENANTS: {
  id: string;
  name: string;
  plan: PlanId;
  users: { id: string; name: string; role: Role }[];
}[] = [
  {
    id: 'tdemoenterprise',
    name: 'Demo Enterprise Bank',
    plan: 'enterprise',
    users: [
      { id: 'uentadmin', name: 'Enterprise Admin', role: 'admin' },
      { id: 'uentanalyst1', name: 'Enterprise Analyst One', role: 'analyst' },
      { id: 'uentanalyst2', name: 'Enterprise Analyst Two', role: 'analyst' },
    ],
  },
  {
    id: 'tdemostarter',
    name: 'Demo Starter Fintech',
    plan: 'starter',
    users: [
      { id: 'ustartadmin', name: 'Starter Admin', role: 'admin' },
      { id: 'ustartanalyst', name: 'Starter Analyst', role: 'analyst' },
    ],
  },
];

/**
 * Seeds the demo tenants once. Keys exist only at creation, so they are written to `keysFile`
 * (when given); on later starts the file is read back. Returns the demo keys.
 */
export async function seedDemoTenants(table: Table, keysFile?: string): Promise<DemoKey[]> {
  if (await getTenant(table, DEMO_TENANTS[0].id)) {
    if (keysFile && existsSync(keysFile)) return JSON.parse(readFileSync(keysFile, 'utf8')).keys as DemoKey[];
    throw new Error(
      `demo tenants exist but ${keysFile ?? 'no keys file'} is missing; delete the data directory to reseed`,
    );
  }
  const seeded: DemoKey[] = [];
  for (const demo of DEMO_TENANTS) {
    const [adminSpec, ...others] = demo.users;
    const { admin } = await createTenant(table, {
      tenantId: demo.id,
      name: demo.name,
      plan: demo.plan,
      adminName: adminSpec.name,
      adminUserId: adminSpec.id,
    });
    const created = [admin];
    for (const user of others) {
      created.push(
        await addUser(table, demo.id, {
          userId: user.id,
          name: user.name,
          role: user.role,
          issuer: OPERATIONS_ISSUER,
        }),
      );
    }
    for (const { user, api_key } of created) {
      seeded.push({
        tenant_id: demo.id,
        tenant: demo.name,
        plan: demo.plan,
        user_id: user.user_id,
        user: user.name,
        role: user.role,
        api_key,
      });
    }
  }
  if (keysFile) writeFileSync(keysFile, `${JSON.stringify({ keys: seeded }, null, 2)}\n`, { mode: 0o600 });
  return seeded;
}
