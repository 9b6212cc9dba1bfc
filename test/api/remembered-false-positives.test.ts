import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { useLocalStack } from '../support/api-client.ts';

/**
 * Issue 40, item 4, black box through the local stack: a subject decided `false_positive` and
 * screened again through POST /screen comes back with the match marked as decided, at the lower
 * level; the replay of that screen is identical; the memory is the tenant's, listed and revoked
 * by an admin on the audit trail.
 */
const local = useLocalStack();

async function tenant(name: string) {
  const table = getServices().table;
  const made = await createTenant(table, { name, plan: 'enterprise' });
  const analyst = await addUser(table, made.tenant.tenant_id, {
    name: 'Olu Analyst',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  return { admin: made.admin.api_key, analyst: analyst.api_key };
}

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
const matchesOf = (screen: any): any[] => [
  ...(screen.sanctions_result?.matches ?? []),
  ...(screen.pep_result?.matches ?? []),
  ...(screen.criminal_result?.interpol_hits ?? []),
  ...(screen.criminal_result?.fbi_hits ?? []),
];
const SUBJECT = { name: 'Vladimir Putin', types: 'sanctions,pep', force: true };

describe('POST /screen remembers decided false positives', () => {
  it('shows a decided false positive marked at the lower level, replays identical, and forgets it when an admin revokes it', async () => {
    const bank = await tenant('Remembering Bank');
    const other = await tenant('Other Bank');
    const first = (await local.api.post('/screen', bank.analyst, SUBJECT)).body;
    const decided = await local.api.post(`/screens/${first.screen_id}/dispose`, bank.analyst, {
      disposition: 'false_positive',
      note: 'Namesake, born 1987',
    });

    const again = await local.api.post('/screen', bank.analyst, SUBJECT);
    const elsewhere = await local.api.post('/screen', other.analyst, SUBJECT);
    const replay = await local.api.post(`/screens/${again.body.screen_id}/replay`, bank.admin);
    const refused = await local.api.get('/settings/false-positives', bank.analyst);
    const listed = await local.api.get('/settings/false-positives', bank.admin);
    const otherListed = await local.api.get('/settings/false-positives', other.admin);

    expect(first.risk_level).toBe('HIGH');
    expect(decided.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.risk_level).toBe('LOW');
    expect(matchesOf(again.body).every((match) => match.decided_false_positive?.applies)).toBe(true);
    expect(matchesOf(again.body)[0].decided_false_positive).toMatchObject({
      screen_id: first.screen_id,
      link: `/screens/${first.screen_id}`,
      decided_by: { role: 'analyst' },
    });
    expect(elsewhere.body.risk_level).toBe('HIGH');
    expect(replay.status).toBe(200);
    expect(replay.body.replayed.identical).toBe(true);
    expect(refused.status).toBe(403);
    expect(listed.status).toBe(200);
    expect(listed.body.false_positives).toHaveLength(matchesOf(first).length);
    expect(otherListed.body.false_positives).toEqual([]);

    for (const memory of listed.body.false_positives) {
      const revoked = await local.api.delete(`/settings/false-positives/${memory.memory_id}`, bank.admin);
      expect(revoked.status).toBe(200);
    }
    const unknown = await local.api.delete(`/settings/false-positives/not-a-memory`, bank.admin);
    const afterRevoke = await local.api.post('/screen', bank.analyst, SUBJECT);
    const trail = await local.api.get('/audit?limit=50', bank.admin);

    expect(unknown.status).toBe(404);
    expect(afterRevoke.body.risk_level).toBe('HIGH');
    expect(matchesOf(afterRevoke.body).some((match) => match.decided_false_positive)).toBe(false);
    const revocations = trail.body.entries.filter(
      (entry: { action: string; outcome: string }) =>
        entry.action === 'false-positive.revoke' && entry.outcome === 'done',
    );
    expect(revocations).toHaveLength(matchesOf(first).length);
  });
});
