import { auditedCommit, SYSTEM_ACTOR } from '../audit/trail.ts';
import {
  findScreen,
  type HistoryEntry,
  type PutOutcome,
  parseScreenItem,
  putScreen,
  type ScreenItem,
  screenWrites,
} from '../screening/screen-table.ts';
import type { Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import { isCarried } from './rescreen-review.ts';

/**
 * A decision the system carries to a monitored client's newer screen (rescreen-review.ts) is on
 * the tenant's audit trail like every other decision: a `screen.carry` entry by the `system`
 * actor, written in the same transaction as the carry (lib/audit/trail.ts `auditedCommit`), so a
 * carried decision never stands without its record. The entry names the screen it reached, where
 * and by whom the decision was made (`carried_from_*`, `decided_by`), the screen it was carried
 * from (`via_screen_id`: the client's baseline on a re-screen, the screen just decided on the
 * settled-decision follow-up) and its version on the new screen.
 *
 * A carry the table refuses (the screen decided or stored meanwhile) writes nothing and is not
 * recorded: it is no decision, and what is there stands.
 */

/** How the decision reached the screen: a re-screen run, or the follow-up of a decision on an older screen. */
type CarryPath = 'rescreen' | 'settled_decision';

function carryRecord(
  screen: Pick<ScreenItem, 'screen_id' | 'client_id'>,
  entry: HistoryEntry,
  carry: { path: CarryPath; viaScreenId: string; version: number; runId?: string; replacesCarried?: boolean },
) {
  return {
    action: 'screen.carry' as const,
    actor: SYSTEM_ACTOR,
    target: {
      screen_id: screen.screen_id,
      ...(screen.client_id ? { client_id: screen.client_id } : {}),
      ...(carry.runId ? { run_id: carry.runId } : {}),
    },
    details: {
      path: carry.path,
      disposition: entry.disposition,
      carried_from_screen_id: entry.carried_from?.screen_id ?? null,
      carried_from_version: entry.carried_from?.decision_version ?? null,
      decided_by: entry.author.user_id,
      decided_by_role: entry.author.role,
      decided_at: entry.carried_from?.decided_at ?? null,
      via_screen_id: carry.viaScreenId,
      version: carry.version,
      replaces_carried: carry.replacesCarried === true,
    },
  };
}

/** A write whose refusal is an outcome: the item the table found, instead of an error. */
function refusable(write: TableWrite) {
  const refusal = { found: undefined as Record<string, unknown> | undefined, marker: new Error('refused') };
  return {
    write: {
      ...write,
      refused: (found: Record<string, unknown> | undefined) => {
        refusal.found = found;
        return refusal.marker;
      },
    },
    refusal,
  };
}

/**
 * Stores a client's fresh re-screen (lib/screening/screen-subject.ts `store`): one that carries
 * its baseline's decision with its `screen.carry` entry, in one transaction; any other as usual.
 */
export async function storeRescreen(table: Table, item: ScreenItem, runId: string): Promise<PutOutcome> {
  const entry = item.disposition;
  if (!entry || !isCarried(entry)) return putScreen(table, item);
  const { write, refusal } = refusable(screenWrites.put(item));
  const record = carryRecord(item, entry, {
    path: 'rescreen',
    viaScreenId: item.baseline_screen_id ?? entry.carried_from?.screen_id ?? item.screen_id,
    version: item.decision_version ?? 1,
    runId,
  });
  return auditedCommit(table, item.tenant_id, record, async (commit): Promise<PutOutcome> => {
    try {
      await commit([write]);
      return { stored: true };
    } catch (error) {
      if (error !== refusal.marker) throw error;
      // Stored already (a retry of the same job), as the table found it: nothing written.
      return { stored: false, found: refusal.found ? parseScreenItem(refusal.found) : undefined };
    }
  });
}

/**
 * Carries the settled decision of `viaScreenId` to the client's `current` screen
 * (lib/monitoring/settled-decisions.ts), with its `screen.carry` entry, in one transaction: the
 * screen as the carry left it, or undefined when the screen changed since it was read.
 */
export async function carryToScreen(
  table: Table,
  current: ScreenItem,
  entry: HistoryEntry,
  carry: { viaScreenId: string; replacingCarried: boolean },
): Promise<ScreenItem | undefined> {
  const { write, refusal } = refusable(
    screenWrites.carryDecision(current, entry, {
      sourceScreenId: carry.viaScreenId,
      replacingCarried: carry.replacingCarried,
    }),
  );
  const record = carryRecord(current, entry, {
    path: 'settled_decision',
    viaScreenId: carry.viaScreenId,
    // The write's own count: SET reads the item as it was.
    version: (current.history_count ?? 0) + 1,
    replacesCarried: carry.replacingCarried,
  });
  const carried = await auditedCommit(table, current.tenant_id, record, async (commit) => {
    try {
      await commit([write]);
      return true;
    } catch (error) {
      if (error !== refusal.marker) throw error;
      return false;
    }
  });
  return carried ? findScreen(table, current.tenant_id, current.screen_id) : undefined;
}
