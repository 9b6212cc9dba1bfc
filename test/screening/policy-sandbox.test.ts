import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import { type PolicyBody, SERVICE_POLICY } from '../../lib/policy/policy.ts';
import { runSandbox, sha256Of } from '../../lib/screening/policy-sandbox.ts';
import { DisposeRequestSchema } from '../../lib/screening/request.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { findScreen } from '../../lib/screening/screen-table.ts';
import { enterprisePrincipal, useStoreWithMatcher } from '../support/enterprise-principal.ts';

/**
 * Issue 40, item 2: the sandbox replays a tenant's past screens, each on the snapshot its receipt
 * names, under a proposed policy, and reports what would change; a planted decided confirmed hit
 * the proposal would miss is named first. On DynamoDB Local with the real local.matcher and the shipped
 * lists: "Olaf Scholz" and "Emmanuel Macron" match only the world leaders' PEP list (HIGH), "Joe
 * Biden" only US PEP lists at LOW, "Kim Jong Un" OFAC SDN at HIGH.
 */
const local = useStoreWithMatcher();

const tenantId = 'tsandbox';
const analyst = enterprisePrincipal(tenantId, 'u-analyst', 'analyst');
const screened = async (name: string, disposition?: string) => {
  const services = {
    table: local.store.table,
    config: readConfig({ TABLE_NAME: local.store.table.name, RESCREEN_WINDOW_HOURS: '0' }),
    matcher: () => local.matcher,
  };
  const screen = await screenSubject(services, analyst, { name });
  if (disposition)
    await disposeScreen(
      local.store.table,
      analyst,
      screen.screen_id,
      v.parse(DisposeRequestSchema, { disposition }),
    );
  return (await findScreen(local.store.table, tenantId, screen.screen_id))!;
};

describe('the policy sandbox', () => {
  it('reports alerts gained and lost by level, names the decided confirmed hits it would miss first, then the decided false positives', async () => {
    const history = [
      await screened('Olaf Scholz', 'confirmed_hit'),
      await screened('Emmanuel Macron', 'false_positive'),
      await screened('Joe Biden'),
      await screened('Kim Jong Un', 'confirmed_hit'),
    ];
    const proposed: PolicyBody = {
      ...SERVICE_POLICY,
      screening: { ...SERVICE_POLICY.screening, excluded_lists: ['world_leaders_pep', 'intl_bodies_pep'] },
      risk_bands: {
        ...SERVICE_POLICY.risk_bands,
        pep: { LOW: 'MEDIUM', MEDIUM: 'MEDIUM', HIGH: 'HIGH', CRITICAL: 'CRITICAL' },
      },
    };
    const progress: number[] = [];

    const report = await runSandbox(
      history,
      async (version) => (version === local.matcher.snapshot.version ? local.matcher : undefined),
      proposed,
      1,
      (done) => {
        progress.push(done);
      },
    );

    expect(history.map((screen) => screen.risk_level)).toEqual(['HIGH', 'HIGH', 'LOW', 'HIGH']);
    expect(Object.keys(report)[0]).toBe('confirmed_hits_no_longer_alerting');
    expect(report.confirmed_hits_no_longer_alerting).toEqual([
      {
        name: 'Olaf Scholz',
        screen_id: history[0]?.screen_id,
        decided_by: 'u-analyst',
        decided_at: expect.any(String),
        level_before: 'HIGH',
        level_after: 'CLEAR',
      },
    ]);
    expect(report.false_positives_no_longer_alerting.map((row) => row.name)).toEqual(['Emmanuel Macron']);
    expect(report.alerts_lost).toMatchObject({ HIGH: 2, MEDIUM: 0 });
    expect(report.alerts_gained).toMatchObject({ MEDIUM: 1, HIGH: 0 });
    expect(report.level_changes).toEqual([
      { screen_id: history[0]?.screen_id, before: 'HIGH', after: 'CLEAR' },
      { screen_id: history[1]?.screen_id, before: 'HIGH', after: 'CLEAR' },
      { screen_id: history[2]?.screen_id, before: 'LOW', after: 'MEDIUM' },
    ]);
    expect(report).toMatchObject({
      screens_replayed: 4,
      screens_skipped: [],
      policy_sha256: sha256Of(proposed),
    });
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('under the policy the screens were made with, nothing changes; a screen whose snapshot is gone is skipped, named', async () => {
    const history = [await screened('Olaf Scholz', 'confirmed_hit'), await screened('Joe Biden')];

    const same = await runSandbox(history, async () => local.matcher, SERVICE_POLICY, 0);
    const gone = await runSandbox(history, async () => undefined, SERVICE_POLICY, 0);

    expect(same).toMatchObject({
      screens_replayed: 2,
      level_changes: [],
      confirmed_hits_no_longer_alerting: [],
    });
    expect(gone.screens_skipped).toEqual(
      history.map((screen) => ({
        screen_id: screen.screen_id,
        reason: expect.stringContaining('no longer kept'),
      })),
    );
  });
});
