import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import {
  boundsProblems,
  NEW_TENANT_POLICY,
  type PolicyBody,
  SERVICE_POLICY,
} from '../../lib/policy/policy.ts';
import { adoptPolicy, readPolicy } from '../../lib/policy/policy-settings.ts';
import { replayScreen } from '../../lib/screening/replay.ts';
import { DisposeRequestSchema } from '../../lib/screening/request.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { enterprisePrincipal, useStoreWithMatcher } from '../support/enterprise-principal.ts';

/**
 * Issue 40, item 1: a tenant's screening policy, versioned. Its approval rules make a decision
 * await a sign-off; its bands and lists shape what a screen shows, within the service's bounds;
 * every receipt names the version, and a replay applies that version, whatever is in force now.
 * On DynamoDB Local, with the real local.matcher and the shipped lists ("Vladimir Putin" without a date
 * of birth: OFAC SDN at MEDIUM, the world leaders' list at HIGH).
 */
const local = useStoreWithMatcher();

const services = () => ({
  table: local.store.table,
  config: readConfig({ TABLE_NAME: local.store.table.name, RESCREEN_WINDOW_HOURS: '0' }),
  matcher: () => local.matcher,
});
const person = enterprisePrincipal;
const ops = { user_id: 'ops-cli', role: 'ops' as const };
const adopt = (tenantId: string, policy: PolicyBody) =>
  adoptPolicy(local.store.table, tenantId, ops, policy, { proposalId: null, reportDigest: null });
const PUTIN = { name: 'Vladimir Putin' };
const pepBandedDown: PolicyBody = {
  ...SERVICE_POLICY,
  risk_bands: {
    ...SERVICE_POLICY.risk_bands,
    pep: { LOW: 'LOW', MEDIUM: 'MEDIUM', HIGH: 'MEDIUM', CRITICAL: 'CRITICAL' },
  },
};

describe('the tenant policy', () => {
  it('version 0, the service’s own, changes nothing: the screen is the matcher’s and its receipt names version 0', async () => {
    const analyst = person('tpolicy0', 'u1', 'analyst');

    const policy = await readPolicy(local.store.table, analyst);
    const screen = await screenSubject(services(), analyst, PUTIN);

    expect(policy).toMatchObject({ version: 0, policy: SERVICE_POLICY, adopted_by: null });
    const raw = local.matcher.screen(PUTIN, ['sanctions', 'pep', 'criminal']);
    expect(screen.risk_level).toBe(raw.risk_level);
    expect(screen.pep_result).toMatchObject({
      risk_level: raw.pep_result?.risk_level,
      narrative: raw.pep_result?.narrative,
    });
    expect(screen.receipt?.policy).toEqual({ version: 0 });
  });

  it('under a policy requiring approval for false_positive on HIGH, an analyst’s decision awaits approval', async () => {
    const tenantId = 'tpolicyapproval';
    const analyst = person(tenantId, 'u-analyst', 'analyst');
    await adopt(tenantId, {
      ...SERVICE_POLICY,
      approval: { ...SERVICE_POLICY.approval, false_positive: ['HIGH', 'CRITICAL'] },
    });
    const high = await screenSubject(services(), analyst, PUTIN);
    const clear = await screenSubject(services(), analyst, { name: 'Hjordis Zqkalomir Quillonby' });

    const decided = await disposeScreen(
      local.store.table,
      analyst,
      high.screen_id,
      v.parse(DisposeRequestSchema, { disposition: 'false_positive' }),
    );
    const low = await disposeScreen(
      local.store.table,
      analyst,
      clear.screen_id,
      v.parse(DisposeRequestSchema, { disposition: 'false_positive' }),
    );

    expect(high.risk_level).toBe('HIGH');
    expect(decided.disposition).toMatchObject({ disposition: 'false_positive', awaiting_approval: true });
    expect(clear.risk_level).toBe('CLEAR');
    expect(low.disposition).toMatchObject({ awaiting_approval: false });
  });

  it('bands, lists and default check types shape the screen; the receipt names the version and a replay under an older version is identical', async () => {
    const tenantId = 'tpolicyreplay';
    const analyst = person(tenantId, 'u-analyst', 'analyst');
    const admin = person(tenantId, 'u-admin', 'admin');
    const v1 = await adopt(tenantId, pepBandedDown);
    const underV1 = await screenSubject(services(), analyst, PUTIN);
    const v2 = await adopt(tenantId, {
      ...SERVICE_POLICY,
      screening: { ...SERVICE_POLICY.screening, default_types: ['sanctions'] },
    });
    const underV2 = await screenSubject(services(), analyst, PUTIN);
    const v3 = await adopt(tenantId, {
      ...SERVICE_POLICY,
      screening: {
        ...SERVICE_POLICY.screening,
        excluded_lists: ['world_leaders_pep', 'intl_bodies_pep', 'us_executive_pep', 'us_congress_pep'],
      },
    });
    const underV3 = await screenSubject(services(), analyst, PUTIN);

    const replay = await replayScreen(services(), admin, underV1.screen_id);

    expect([v1.version, v2.version, v3.version]).toEqual([1, 2, 3]);
    expect(underV1.receipt?.policy).toEqual({ version: 1 });
    expect(underV1.pep_result?.risk_level).toBe('MEDIUM');
    expect(underV1.risk_level).toBe('MEDIUM');
    expect(underV1.pep_result?.narrative).toContain('Tenant policy version 1');
    expect(underV2.types).toEqual(['sanctions']);
    expect(underV2.pep_result).toBeNull();
    expect(underV3.pep_result).toMatchObject({ risk_level: 'CLEAR', matches: [] });
    expect(underV3.receipt?.policy).toEqual({ version: 3 });
    expect(replay.replayed).toMatchObject({ identical: true, risk_level: 'MEDIUM' });
    expect((await readPolicy(local.store.table, analyst)).version).toBe(3);
  });

  it('keeps every policy within the service’s bounds', async () => {
    const weakSanctions: PolicyBody = {
      ...SERVICE_POLICY,
      risk_bands: {
        ...SERVICE_POLICY.risk_bands,
        sanctions: { LOW: 'LOW', MEDIUM: 'MEDIUM', HIGH: 'MEDIUM', CRITICAL: 'CRITICAL' },
      },
    };
    const noOfac: PolicyBody = {
      ...SERVICE_POLICY,
      screening: { ...SERVICE_POLICY.screening, excluded_lists: ['ofac_sdn'] },
    };
    const inverted: PolicyBody = {
      ...SERVICE_POLICY,
      risk_bands: {
        ...SERVICE_POLICY.risk_bands,
        criminal: { LOW: 'MEDIUM', MEDIUM: 'LOW', HIGH: 'HIGH', CRITICAL: 'CRITICAL' },
      },
    };

    expect(boundsProblems(SERVICE_POLICY)).toEqual([]);
    expect(boundsProblems(NEW_TENANT_POLICY)).toEqual([]);
    expect(boundsProblems(pepBandedDown)).toEqual([]);
    expect(boundsProblems(weakSanctions)).toEqual([
      expect.stringContaining('risk_bands.sanctions.HIGH: MEDIUM is below what the service allows'),
    ]);
    expect(boundsProblems(noOfac)).toEqual([expect.stringContaining('ofac_sdn is a sanctions list')]);
    expect(boundsProblems(inverted)).toEqual([
      expect.stringContaining('risk_bands.criminal.MEDIUM: LOW is below the band of a weaker match'),
    ]);
    await expect(adopt('tpolicybounds', weakSanctions)).rejects.toThrow(/never lowered/);
    expect((await readPolicy(local.store.table, person('tpolicybounds', 'u', 'admin'))).version).toBe(0);
  });
});
