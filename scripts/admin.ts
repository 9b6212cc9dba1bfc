import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openTable } from '../infra/local/open-table.ts';
import { anchorStoreOf } from '../lib/audit/anchor-store.ts';
import { chainWaitingEntries } from '../lib/audit/chain-writer.ts';
import { AUDIT_LIMIT_MAX, audited, listAudit, OPS_ACTOR } from '../lib/audit/trail.ts';
import { type ExpectedHead, verifyTenantTrail } from '../lib/audit/verify.ts';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS, localSettings, readConfig } from '../lib/common/config.ts';
import { rescreenAfterSync, summariseSync } from '../lib/jobs/run-sync.ts';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import { claimAllClientPersons } from '../lib/monitoring/client-claims.ts';
import { fileAllClientNameKeys } from '../lib/monitoring/client-name-keys.ts';
import { adoptNewTenantPolicy } from '../lib/policy/policy-settings.ts';
import { acceptHeld, OPERATIONS_TRAIL, rejectHeld, reviewHeld } from '../lib/sync/review.ts';
import { snapshotStoreOf } from '../lib/sync/snapshot-store.ts';
import { isPlanId, PLAN_IDS } from '../lib/tenancy/plans.ts';
import {
  getRetention,
  RETENTION_DAYS_MAX,
  type SettingsPatch,
  setRetention,
} from '../lib/tenancy/retention.ts';
import { ROLES, type Role } from '../lib/tenancy/roles.ts';
import { changePlan, createTenant, getTenant, listTenants } from '../lib/tenancy/tenants.ts';
import { addTenantUser, disableUser, listUsers, revokeUserKey } from '../lib/tenancy/users.ts';

const USAGE = `Ops CLI: npm run admin -- <command> [options]

Commands
  create-tenant --name NAME --plan PLAN [--admin-name NAME]   prints tenant id and the admin key (once);
                the tenant starts under the new-tenant policy (version 1, docs/policies.md)
  add-user      --tenant ID --name NAME --role admin|analyst  prints the user's key (once); analysts use plan seats
  list-tenants
  set-plan      --tenant ID --plan PLAN
  list-users    --tenant ID                                   every user, disabled ones included (never a key)
  disable-user  --tenant ID --user ID                         their key stops working at once; an analyst's seat is freed
  revoke-key    --tenant ID --user ID                         the old key stops working; prints the new one (once);
                                                              the only way to reset an admin's key. The new key
                                                              has no lineage: hand it to the user yourself
  audit         --tenant ID [--limit N]                       the tenant's audit trail, newest first
  verify-audit  --tenant ID [--expect-count N [--expect-head HASH]]
                                                              checks the tenant's hash chain, then that it still
                                                              reaches the newest anchor published outside the table
                                                              (and the head you kept, if given): OK with the count
                                                              and head hash, or what is wrong where (exit code 1)
  retention     --tenant ID                                   the tenant's retention settings
  set-retention --tenant ID [--days N|none] [--lock on|off] [--reason TEXT]
                                                              retention period and lock; lifting the lock or
                                                              shortening the period while it holds needs --reason
                                                              (tenant admins can only tighten them)
  file-name-keys                                              files every monitored client under its name keys
                                                              (once, for clients registered before delta rescreens)
  claim-client-persons                                        claims the person of every monitored client (once, for
                                                              clients registered before one client per person, or before
                                                              it folded names as the matcher does); lists the copies of
                                                              a person found, oldest kept, to stop
  sync-review   --list ID [--store DIR]                       a list file the sync held for review: why it was
                                                              refused and how it differs from the list in force
  sync-accept   --list ID --reason TEXT [--store DIR]         publishes the held file; its count becomes the
                                                              list's baseline; clients it could match are made due
  sync-reject   --list ID --reason TEXT [--store DIR]         discards the held file; the list keeps its data
                                                              (accept and reject are in the audit trail of
                                                              --tenant ${OPERATIONS_TRAIL})

Every change (add-user, set-plan, disable-user, revoke-key, set-retention) is recorded in the tenant's audit
trail with the actor "ops-cli", like an admin's own changes through the API.

Plans: ${PLAN_IDS.join(', ')}

Store (default: the local runtime's store under DATA_DIR, default .data)
  --store DIR        the snapshot store (default WATCHLIST_STORE_DIR, else DATA_DIR/watchlists);
                     with WATCHLIST_BUCKET set, that S3 bucket instead
  --table NAME       DynamoDB table (or TABLE_NAME); with no --endpoint this is the deployed table in AWS_REGION
  --endpoint URL     a DynamoDB endpoint (or DYNAMODB_ENDPOINT), e.g. a running DynamoDB Local
  --region REGION    (or AWS_REGION)
  The audit anchors: AUDIT_ANCHOR_BUCKET (the stack's Object Lock bucket) or AUDIT_ANCHOR_DIR,
  default DATA_DIR/audit-anchors (npm start's)
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    plan: { type: 'string' },
    'admin-name': { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string' },
    user: { type: 'string' },
    limit: { type: 'string' },
    days: { type: 'string' },
    lock: { type: 'string' },
    reason: { type: 'string' },
    list: { type: 'string' },
    store: { type: 'string' },
    table: { type: 'string' },
    endpoint: { type: 'string' },
    region: { type: 'string' },
    'expect-count': { type: 'string' },
    'expect-head': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const [command] = positionals;
if (values.help || !command) {
  process.stdout.write(USAGE);
  process.exit(command ? 0 : 2);
}

function openStore() {
  return openTable({ table: values.table, endpoint: values.endpoint, region: values.region });
}

function planArg(): (typeof PLAN_IDS)[number] {
  const plan = values.plan?.toLowerCase();
  if (!plan || !isPlanId(plan)) fail(`--plan must be one of ${PLAN_IDS.join(', ')}`);
  return plan;
}

/** --tenant, which must name an existing tenant (so no audit entry lands in a tenant that is not). */
async function tenantArg(): Promise<string> {
  if (!values.tenant) fail('--tenant is required');
  // The operations trail (list decisions) can be read and verified like a tenant's.
  if (values.tenant === OPERATIONS_TRAIL && ['audit', 'verify-audit'].includes(command)) return values.tenant;
  if (!(await getTenant(store.table, values.tenant))) fail(`tenant ${values.tenant} not found`);
  return values.tenant;
}

/** The audit anchors: AUDIT_ANCHOR_BUCKET or AUDIT_ANCHOR_DIR, else `npm start`'s directory. */
function anchorStore() {
  return anchorStoreOf({
    ...process.env,
    AUDIT_ANCHOR_DIR: process.env.AUDIT_ANCHOR_DIR ?? resolve(localSettings().dataDir, 'audit-anchors'),
  });
}

/** --expect-count N [--expect-head HASH]: a head an examiner kept. */
function expectedHeadArgs(): ExpectedHead | undefined {
  const count = values['expect-count'];
  const hash = values['expect-head'];
  if (count === undefined && hash === undefined) return undefined;
  if (count === undefined || !/^\d{1,12}$/.test(count) || Number(count) < 1)
    fail('--expect-count must be a whole number from 1 (the seq of the head you kept)');
  if (hash !== undefined && !/^[0-9a-f]{64}$/.test(hash)) fail('--expect-head must be a SHA-256 hex hash');
  return { count: Number(count), hash };
}

/** --days N|none and --lock on|off, as the change PATCH /settings would send. */
function retentionArgs(): SettingsPatch {
  const patch: SettingsPatch = {};
  if (values.days !== undefined) {
    const days = Number(values.days);
    if (values.days === 'none') patch.retention_days = null;
    else if (Number.isInteger(days) && days >= 1 && days <= RETENTION_DAYS_MAX) patch.retention_days = days;
    else fail(`--days must be a whole number from 1 to ${RETENTION_DAYS_MAX}, or none`);
  }
  if (values.lock !== undefined) {
    if (values.lock !== 'on' && values.lock !== 'off') fail('--lock must be on or off');
    patch.retention_lock = values.lock === 'on';
  }
  if (Object.keys(patch).length === 0) fail('set-retention needs --days, --lock or both');
  return patch;
}

/** The list review's inputs: the snapshot store as `npm run sync` finds it, and the bundled snapshot. */
function reviewArgs() {
  if (!values.list) fail('--list is required');
  const storeDir =
    values.store ?? process.env.WATCHLIST_STORE_DIR ?? resolve(process.env.DATA_DIR ?? '.data', 'watchlists');
  const config = readConfig({ ...process.env, TABLE_NAME: store.table.name, WATCHLIST_STORE_DIR: storeDir });
  const snapshots = snapshotStoreOf(config);
  if (!snapshots) fail('no snapshot store: set --store, WATCHLIST_STORE_DIR or WATCHLIST_BUCKET');
  return {
    store: snapshots,
    table: store.table,
    bundled: () => loadSnapshot(config.WATCHLIST_SNAPSHOT || undefined),
    listId: values.list,
  };
}

function reasonArg(): string {
  const reason = values.reason?.trim();
  if (!reason) fail('--reason is required: say what you checked');
  return reason;
}

function userArg(): string {
  if (!values.user) fail('--user is required');
  return values.user;
}

const store = await openStore();
try {
  let output: unknown;
  switch (command) {
    case 'create-tenant': {
      if (!values.name) fail('--name is required');
      const { tenant, admin } = await createTenant(store.table, {
        name: values.name,
        plan: planArg(),
        adminName: values['admin-name'],
      });
      // A tenant made by operations starts under the new-tenant policy (docs/policies.md).
      const policy = await adoptNewTenantPolicy(store.table, tenant.tenant_id, OPS_ACTOR);
      output = {
        tenant_id: tenant.tenant_id,
        name: tenant.name,
        plan: tenant.plan,
        policy_version: policy.version,
        admin: admin.user,
        api_key: admin.api_key,
      };
      break;
    }
    case 'add-user': {
      if (!values.name) fail('--name is required');
      if (!ROLES.includes(values.role as Role)) fail(`--role must be one of ${ROLES.join(', ')}`);
      const created = await addTenantUser(store.table, OPS_ACTOR, await tenantArg(), {
        name: values.name,
        role: values.role as Role,
      });
      output = { ...created.user, api_key: created.api_key };
      break;
    }
    case 'list-tenants':
      output = { tenants: await listTenants(store.table) };
      break;
    case 'set-plan': {
      const tenantId = await tenantArg();
      const plan = planArg();
      output = await audited(
        store.table,
        tenantId,
        { action: 'tenant.set-plan', actor: OPS_ACTOR, details: { plan } },
        () => changePlan(store.table, tenantId, plan),
      );
      break;
    }
    case 'list-users':
      output = await listUsers(store.table, await tenantArg());
      break;
    case 'disable-user':
      output = await disableUser(store.table, OPS_ACTOR, await tenantArg(), userArg());
      break;
    case 'revoke-key':
      output = await revokeUserKey(store.table, OPS_ACTOR, await tenantArg(), userArg());
      break;
    case 'audit': {
      const limit = Number(values.limit ?? AUDIT_LIMIT_MAX);
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIMIT_MAX)
        fail(`--limit must be a whole number from 1 to ${AUDIT_LIMIT_MAX}`);
      const tenantId = await tenantArg();
      // Entries this CLI (or anything else) wrote wait for the chain writer, which runs on the
      // table's stream on AWS and inside `npm start` locally; with neither running, the listing
      // links them first, as the writer would. A writer that cannot (no right to put anchors)
      // leaves them waiting, and the chain is listed as it stands.
      await chainWaitingEntries(
        {
          table: store.table,
          anchors: anchorStore(),
          retainDays: async () =>
            Number(process.env.AUDIT_ANCHOR_RETENTION_DAYS ?? DEFAULT_SNAPSHOT_RETENTION_DAYS),
        },
        tenantId,
      ).catch((error: unknown) =>
        process.stderr.write(`waiting audit entries not linked: ${(error as Error).message}\n`),
      );
      output = await listAudit(store.table, tenantId, limit);
      break;
    }
    case 'verify-audit': {
      const tenantId = await tenantArg();
      const verdict = await verifyTenantTrail(store.table, tenantId, {
        anchors: anchorStoreOf({
          ...process.env,
          AUDIT_ANCHOR_DIR: process.env.AUDIT_ANCHOR_DIR ?? resolve(localSettings().dataDir, 'audit-anchors'),
        }),
        expect: expectedHeadArgs(),
      });
      const anchored = verdict.anchor
        ? `, anchored at entry ${verdict.anchor.seq}`
        : ', no anchor published yet';
      const waiting = verdict.waiting > 0 ? `; ${verdict.waiting} newer entries wait to be chained` : '';
      output = verdict.ok
        ? {
            tenant_id: tenantId,
            ...verdict,
            detail: `OK: ${verdict.count} entries, head hash ${verdict.head_hash}${anchored}${waiting}`,
          }
        : { tenant_id: tenantId, ...verdict, detail: `BROKEN at entry ${verdict.seq}: ${verdict.detail}` };
      // A broken chain is the command's failure: scripts and CI can act on the exit code alone.
      if (!verdict.ok) process.exitCode = 1;
      break;
    }
    case 'retention':
      output = await getRetention(store.table, await tenantArg());
      break;
    case 'set-retention': {
      const tenantId = await tenantArg();
      output = await setRetention(store.table, OPS_ACTOR, tenantId, retentionArgs(), values.reason?.trim());
      break;
    }
    case 'sync-review':
      output = await reviewHeld(reviewArgs());
      break;
    case 'sync-accept': {
      const { report } = await acceptHeld({ ...reviewArgs(), reason: reasonArg() });
      output = summariseSync(await rescreenAfterSync(report, store.table));
      break;
    }
    case 'sync-reject':
      output = await rejectHeld({ ...reviewArgs(), reason: reasonArg() });
      break;
    case 'file-name-keys':
      output = await fileAllClientNameKeys(store.table);
      break;
    case 'claim-client-persons':
      output = await claimAllClientPersons(store.table);
      break;
    default:
      fail(`unknown command ${command}`);
  }
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
} catch (error) {
  const detail = (error as { detail?: string }).detail;
  process.stderr.write(`${detail ?? (error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await store.close();
  store.table.doc.destroy();
}
