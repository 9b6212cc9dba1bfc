import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, type AuditAction } from '../../lib/audit/audit-table.ts';
import { routes } from '../../lib/contract/routes.ts';

/**
 * Issue 35, item 4: every decision is on the trail, whoever made it. Every route of the manifest
 * (lib/contract/routes.ts: what infra/local/http-server.ts serves and infra/cdk/stack.ts deploys)
 * that changes state, i.e. every route that is not a GET or HEAD, names here the audit action(s) it
 * writes, or is in RECORDED_ELSEWHERE with the reason its record is not the audit trail. A new
 * state-changing route in neither list fails this test; so does an action nothing in lib/ writes.
 */
const AUDITED: Record<string, readonly AuditAction[]> = {
  'rotate-key': ['user.rotate-key'],
  'screen-replay': ['screen.replay'],
  'screen-dispose': ['screen.dispose', 'screen.override', 'screen.approve'],
  'screen-delete': ['screen.delete'],
  'client-register': ['client.register'],
  'client-stop': ['client.stop'],
  'user-add': ['user.add'],
  'user-disable': ['user.disable'],
  'user-revoke-key': ['user.revoke-key'],
  'settings-update': ['tenant.set-retention'],
  'rescreen-trigger': ['clients.rescreen'],
  // Each subject is registered as POST /clients registers one (lib/monitoring/register-client.ts).
  'batch-clients-stream': ['client.register'],
  'webhook-create': ['webhook.create'],
  'webhook-update': ['webhook.update'],
  'webhook-delete': ['webhook.delete'],
  'webhook-rotate-secret': ['webhook.rotate-secret'],
  'webhook-test': ['webhook.test'],
  'webhook-replay': ['webhook.replay'],
  'false-positive-revoke': ['false-positive.revoke'],
};

/** State-changing routes whose record is not the audit trail, each with why. */
const RECORDED_ELSEWHERE: Record<string, string> = {
  screen:
    'the record of a screen is the screen itself, stored with its receipt (lists, snapshot, matcher) and its author, and its charge on the usage item',
  'batch-stream':
    'each subject is a screen stored with its receipt and author, like POST /screen; the batch record names who started it',
};

const changesState = routes.filter((route) => route.method !== 'GET' && route.method !== 'HEAD');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The lib/ sources that write audit entries: everything but the trail's own declaration. */
const writers = sourcesUnder('lib')
  .filter((path) => path !== join('lib', 'audit', 'audit-table.ts'))
  .map((path) => readFileSync(path, 'utf8'));

describe('every route that changes state is on the audit trail', () => {
  it.each(changesState.map((route) => [`${route.method} ${route.path}`, route.id]))(
    '%s (%s) names its audit action, or why its record is elsewhere',
    (_, id) => {
      const actions = AUDITED[id];
      const elsewhere = RECORDED_ELSEWHERE[id];
      expect(
        actions !== undefined || elsewhere !== undefined,
        `${id} changes state and has no audit action`,
      ).toBe(true);
      expect(actions !== undefined && elsewhere !== undefined, `${id} is in both lists`).toBe(false);
      for (const action of actions ?? []) {
        expect(AUDIT_ACTIONS).toContain(action);
        // Something in lib/ writes it: the action is named where an entry is made.
        expect(
          writers.some((source) => source.includes(`action: '${action}'`) || source.includes(`'${action}'`)),
          `nothing in lib/ writes ${action}`,
        ).toBe(true);
      }
    },
  );

  it('lists only routes of the manifest, and each that is not audited says why in a line', () => {
    const ids = new Set(changesState.map((route) => route.id));
    for (const id of [...Object.keys(AUDITED), ...Object.keys(RECORDED_ELSEWHERE)]) expect(ids).toContain(id);
    for (const reason of Object.values(RECORDED_ELSEWHERE)) expect(reason).not.toContain('\n');
  });
});
