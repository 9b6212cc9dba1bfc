import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { allAuditEntries } from '../../lib/audit/trail.ts';
import { readConfig } from '../../lib/common/config.ts';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import type { Matcher } from '../../lib/matcher/screen.ts';
import type { Match } from '../../lib/matcher/types.ts';
import {
  listRememberedFalsePositives,
  revokeRememberedFalsePositive,
} from '../../lib/screening/false-positive-memory.ts';
import type { MarkedMatch } from '../../lib/screening/remembered-false-positives.ts';
import { DisposeRequestSchema } from '../../lib/screening/request.ts';
import { type ScreenResult, screenSubject } from '../../lib/screening/screen-subject.ts';
import type { Principal } from '../../lib/tenancy/auth.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { enterprisePrincipal, useStoreWithMatcher } from '../support/enterprise-principal.ts';

/**
 * Issue 40, item 4: a decided false positive is remembered for the tenant, per folded subject and
 * listing, and an ad-hoc screen of the same subject shows the match marked and at the lower level,
 * unless the listing (or the subject) changed materially since. On DynamoDB Local, with the real
 * local.matcher and the shipped lists: "Vladimir Putin" without a date of birth matches OFAC SDN 35096
 * at MEDIUM and the world leaders' list at HIGH.
 */
const local = useStoreWithMatcher();

const SUBJECT = { name: 'Vladimir Putin' };
const services = (screening: Matcher = local.matcher) => ({
  table: local.store.table,
  config: readConfig({ TABLE_NAME: local.store.table.name, RESCREEN_WINDOW_HOURS: '0' }),
  matcher: () => screening,
});
const person = enterprisePrincipal;
const screen = (caller: Principal, subject: Record<string, string> = SUBJECT, screening?: Matcher) =>
  screenSubject(services(screening), caller, subject as { name: string });
const decide = (caller: Principal, screenId: string, input: Record<string, unknown>) =>
  disposeScreen(local.store.table, caller, screenId, v.parse(DisposeRequestSchema, input));

const matchesOf = (result: ScreenResult): MarkedMatch[] => [
  ...(result.sanctions_result?.matches ?? []),
  ...(result.pep_result?.matches ?? []),
  ...(result.criminal_result?.interpol_hits ?? []),
  ...(result.criminal_result?.fbi_hits ?? []),
];

/** The local.matcher with one listing amended by its publisher (`change` applied to that match). */
function amended(listId: string, entityId: string, change: (match: Match) => Match): Matcher {
  const screenAmended: Matcher['screen'] = (subject, types) => {
    const checks = local.matcher.screen(subject, types);
    const swap = (matches: Match[]) =>
      matches.map((match) =>
        match.list_id === listId && match.entity_id === entityId ? change(match) : match,
      );
    if (checks.sanctions_result) checks.sanctions_result.matches = swap(checks.sanctions_result.matches);
    if (checks.pep_result) checks.pep_result.matches = swap(checks.pep_result.matches);
    return checks;
  };
  return Object.assign(Object.create(local.matcher), { screen: screenAmended });
}

/** A tenant where an analyst screened the subject and decided it false positive. */
async function decidedTenant(tenantId: string) {
  const analyst = person(tenantId, 'u-analyst', 'analyst');
  const first = await screen(analyst);
  expect(first.risk_level).toBe('HIGH');
  await decide(analyst, first.screen_id, {
    disposition: 'false_positive',
    note: 'Different person: born 1987',
  });
  return { analyst, first };
}

describe('decided false positives on ad-hoc screens', () => {
  it('the same subject screened again comes back with its matches marked as decided, at the lower level', async () => {
    const { analyst, first } = await decidedTenant('tfpmark');

    // "PUTIN, Vladimir" is the same person to the local.matcher, and so to the memory.
    const again = await screen(analyst, { name: 'PUTIN, Vladimir' });

    expect(again.screen_id).not.toBe(first.screen_id);
    expect(again.risk_level).toBe('LOW');
    expect(again.pep_result?.risk_level).toBe('LOW');
    expect(again.pep_result?.is_pep).toBe(false);
    const marked = matchesOf(again).filter((match) => match.decided_false_positive);
    expect(marked.length).toBe(matchesOf(first).length);
    expect(marked[0]?.decided_false_positive).toMatchObject({
      applies: true,
      screen_id: first.screen_id,
      link: `/screens/${first.screen_id}`,
      decided_by: { user_id: 'u-analyst', role: 'analyst' },
      decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      changes: [],
    });
    // The match keeps its own level: what it is, beside what was decided about it.
    expect(matchesOf(again).map((match) => match.risk_level)).toEqual(
      matchesOf(first).map((m) => m.risk_level),
    );
    expect(again.pep_result?.narrative).toContain('decided false positive for this subject before');
  });

  it('after a material change of the listing (a date of birth added) the match alerts again; a cosmetic one keeps the decision', async () => {
    const { analyst } = await decidedTenant('tfplisting');
    const pep = matchesOf(await screen(analyst)).find((match) => match.list_id !== 'ofac_sdn');
    expect(pep).toBeDefined();
    const listId = pep?.list_id as string;
    const entityId = pep?.entity_id as string;

    const withDob = await screen(
      analyst,
      SUBJECT,
      amended(listId, entityId, (match) => ({ ...match, dobs: [...match.dobs, '1961-03-02'] })),
    );
    const reworded = await screen(
      analyst,
      SUBJECT,
      amended(listId, entityId, (match) => ({ ...match, url: 'https://example.org/amended' })),
    );

    expect(withDob.risk_level).toBe('HIGH');
    const reopened = matchesOf(withDob).find((match) => match.entity_id === entityId);
    expect(reopened?.decided_false_positive).toMatchObject({
      applies: false,
      changes: ['gained date of birth 1961-03-02'],
    });
    expect(reworded.risk_level).toBe('LOW');
    expect(
      matchesOf(reworded).find((match) => match.entity_id === entityId)?.decided_false_positive,
    ).toMatchObject({
      applies: true,
      changes: ['url changed'],
    });
  });

  it('another subject (a date of birth given) and another tenant are untouched by the memory', async () => {
    const { analyst } = await decidedTenant('tfpown');
    const stranger = person('tfpother', 'u-other', 'analyst');

    const withDob = await screen(analyst, { name: 'Vladimir Putin', dob: '1987-05-01' });
    const otherTenant = await screen(stranger);

    expect(matchesOf(withDob).some((match) => match.decided_false_positive)).toBe(false);
    expect(otherTenant.risk_level).toBe('HIGH');
    expect(matchesOf(otherTenant).some((match) => match.decided_false_positive)).toBe(false);
    expect(
      (await listRememberedFalsePositives(local.store.table, person('tfpother', 'a', 'admin'), { limit: 50 }))
        .false_positives,
    ).toEqual([]);
  });

  it('a decision awaiting approval is remembered only once signed off, and a confirmed hit forgets it', async () => {
    const tenantId = 'tfpapproval';
    const analyst = person(tenantId, 'u-analyst', 'analyst');
    const admin = person(tenantId, 'u-admin', 'admin');
    const first = await screen(analyst);
    await decide(analyst, first.screen_id, { disposition: 'false_positive', approval_requested: true });

    const beforeSignOff = await screen(analyst);
    await decide(admin, first.screen_id, { disposition: 'approved' });
    const afterSignOff = await screen(analyst);
    await decide(analyst, afterSignOff.screen_id, { disposition: 'confirmed_hit' });
    const afterConfirmed = await screen(analyst);

    expect(beforeSignOff.risk_level).toBe('HIGH');
    expect(afterSignOff.risk_level).toBe('LOW');
    expect(matchesOf(afterSignOff)[0]?.decided_false_positive?.approved_by).toEqual({
      user_id: 'u-admin',
      role: 'admin',
    });
    expect(afterConfirmed.risk_level).toBe('HIGH');
  });

  it('is listed to admins and revoked by one, in one transaction with its audit entry', async () => {
    const { analyst, first } = await decidedTenant('tfprevoke');
    const admin = person('tfprevoke', 'u-admin', 'admin');

    const listed = await listRememberedFalsePositives(local.store.table, admin, { limit: 1 });
    await expect(listRememberedFalsePositives(local.store.table, analyst, { limit: 1 })).rejects.toThrow(
      /admin/,
    );
    const memoryId = listed.false_positives[0]?.memory_id as string;
    const rest = await listRememberedFalsePositives(local.store.table, admin, {
      limit: 50,
      cursor: listed.next_cursor ?? undefined,
    });
    await revokeRememberedFalsePositive(local.store.table, admin, memoryId);
    await expect(revokeRememberedFalsePositive(local.store.table, admin, memoryId)).rejects.toThrow(
      /No remembered/,
    );

    expect(listed.false_positives[0]).toMatchObject({ screen_id: first.screen_id, subject: SUBJECT });
    expect(listed.next_cursor).not.toBeNull();
    expect(1 + rest.false_positives.length).toBe(matchesOf(first).length);
    const left = await listRememberedFalsePositives(local.store.table, admin, { limit: 50 });
    expect(left.false_positives.map((memory) => memory.memory_id)).not.toContain(memoryId);
    await chainAudit(local.store.table, 'tfprevoke');
    const entries = [];
    for await (const entry of allAuditEntries(local.store.table, 'tfprevoke')) entries.push(entry);
    expect(entries.map((entry) => `${entry.action} ${entry.outcome}`)).toEqual([
      'screen.dispose done',
      'false-positive.revoke done',
      'false-positive.revoke refused',
    ]);
    expect(entries[0]?.details).toMatchObject({ false_positives_remembered: matchesOf(first).length });
    expect(entries[1]?.details).toMatchObject({ memory_id: memoryId, decided_by: 'u-analyst' });
  });
});
