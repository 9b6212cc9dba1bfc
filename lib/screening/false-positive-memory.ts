import { auditedCommit } from '../audit/trail.ts';
import { NotFoundError } from '../common/errors.ts';
import type { ListQuery } from '../common/fields.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Table } from '../store/table.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import type { RememberedFalsePositive } from './false-positive-record.ts';
import {
  type FalsePositiveItem,
  falsePositiveWrites,
  findRemembered,
  rememberedPage,
} from './false-positive-table.ts';
import type { Subject } from './subject.ts';

/**
 * GET /settings/false-positives and DELETE /settings/false-positives/{memory_id}: the tenant's
 * memory of decided false positives (./remembered-false-positives.ts), listed and revoked by an
 * admin. A revocation is one transaction with its `false-positive.revoke` audit entry; the next
 * ad-hoc screen of that subject shows the match at its own level again.
 */

export type RememberedFalsePositiveView = Omit<RememberedFalsePositive, 'match'> & {
  subject: Subject;
  remembered_at: string;
};

export interface RememberedFalsePositivePage {
  false_positives: RememberedFalsePositiveView[];
  next_cursor: string | null;
}

const viewOf = (item: FalsePositiveItem): RememberedFalsePositiveView => ({
  memory_id: item.memory_id,
  subject: item.subject,
  list_id: item.list_id,
  entity_id: item.entity_id,
  primary_name: item.primary_name,
  risk_level: item.risk_level,
  screen_id: item.screen_id,
  decision_version: item.decision_version,
  decided_by: item.decided_by,
  decided_at: item.decided_at,
  approved_by: item.approved_by,
  remembered_at: item.remembered_at,
});

export async function listRememberedFalsePositives(
  table: Table,
  caller: Principal,
  query: ListQuery,
): Promise<RememberedFalsePositivePage> {
  requireRole(caller, 'admin', 'Reading the remembered false positives');
  const after = query.cursor ? decodeCursor(query.cursor, 'false-positives', caller.tenantId) : undefined;
  const { items, more } = await rememberedPage(table, caller.tenantId, after, query.limit);
  const last = items[items.length - 1];
  return {
    false_positives: items.map(viewOf),
    next_cursor: more && last ? encodeCursor('false-positives', caller.tenantId, last.memory_id) : null,
  };
}

export async function revokeRememberedFalsePositive(
  table: Table,
  caller: Principal,
  memoryId: string,
): Promise<{ memory_id: string; revoked: true }> {
  requireRole(caller, 'admin', 'Revoking a remembered false positive');
  const found = await findRemembered(table, caller.tenantId, memoryId);
  return auditedCommit(
    table,
    caller.tenantId,
    {
      action: 'false-positive.revoke',
      actor: { user_id: caller.userId, role: caller.role },
      target: found ? { screen_id: found.screen_id } : {},
      details: {
        memory_id: memoryId.slice(0, 60),
        list_id: found?.list_id ?? null,
        entity_id: found?.entity_id ?? null,
        decided_by: found?.decided_by.user_id ?? null,
        decided_at: found?.decided_at ?? null,
      },
    },
    async (commit) => {
      if (!found)
        throw new NotFoundError(`No remembered false positive ${memoryId.slice(0, 60)} in this tenant`);
      await commit([falsePositiveWrites.revoke(caller.tenantId, memoryId)]);
      return { memory_id: memoryId, revoked: true as const };
    },
  );
}
