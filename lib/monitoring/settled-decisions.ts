import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../common/log.ts';
import { isoSeconds } from '../common/time.ts';
import { historyEntryBytes, parseScreenItem, type ScreenItem } from '../screening/screen-record.ts';
import { noteScreenDecision } from '../screening/screened-subjects.ts';
import { indexAttributes, keys } from '../store/schema.ts';
import { isConditionalCheckFailed, type Table } from '../store/table.ts';
import { SYSTEM_ACTOR } from './client-record.ts';
import { settleClientScreen } from './client-table.ts';
import { carriedEntry, judgeAgainstBaseline, settledDecision } from './rescreen-review.ts';

/**
 * A settled decision recorded on one of a client's screens (a sign-off, an override, or a decision
 * on a screen a newer one has since superseded) reaches the client's current state. The decision
 * itself is ONE conditional write on the screen it was made on (lib/screening/dispose.ts); then:
 *
 * 1. the client's `settled_screen_id` moves forward to that screen (never back: condition on the
 *    stored id, screen ids sort by time), so the next re-screen's baseline is never older;
 * 2. the client's current screen takes the decision, by the system actor with a history entry
 *    naming the screen it came from, when it is undecided (or holds a decision the system carried
 *    from the very screen just decided: an override there replaces it) and shows nothing that
 *    needs an analyst against the decided screen (rescreen-review.ts, the same rule a run applies):
 *    one conditional write on it, under those conditions.
 *
 * Both are follow-ups of a decision already stored, so a failure is logged, not returned: the
 * decision stands, and the next re-screen derives the same from its baseline (the current
 * screen names the screen it was compared with; the decided one, when the current screen derives
 * from it). A follow-up lost can leave an alert open for one more run; it never closes one.
 */
export async function applySettledDecision(table: Table, decided: ScreenItem, at: Date): Promise<void> {
  if (!decided.client_id || !settledDecision(decided)) return;
  try {
    const currentId = await moveSettledPointer(table, decided);
    if (!currentId || currentId <= decided.screen_id) return;
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.name,
        Key: keys.screen(decided.tenant_id, currentId),
        ConsistentRead: true,
      }),
    );
    if (Item) await carryToCurrent(table, decided, parseScreenItem(Item), at);
  } catch (error) {
    logger.error(
      { err: error, tenant: decided.tenant_id, screenId: decided.screen_id, clientId: decided.client_id },
      'settled decision not applied to the client’s current screen; the next re-screen applies it',
    );
  }
}

/** Moves the client's settled screen forward; answers the client's current screen id. */
async function moveSettledPointer(table: Table, decided: ScreenItem): Promise<string | undefined> {
  // When refused, a newer screen is settled already: the current screen may still hold a
  // decision carried from this one.
  const client = await settleClientScreen(
    table,
    decided.tenant_id,
    decided.client_id ?? '',
    decided.screen_id,
  );
  return client?.last_screen_id;
}

async function carryToCurrent(table: Table, decided: ScreenItem, current: ScreenItem, at: Date) {
  const carriedFromDecided =
    current.disposition?.author.role === SYSTEM_ACTOR.role &&
    current.decision_source_screen_id === decided.screen_id;
  if (current.disposition && !carriedFromDecided) return;
  // Compared with a settled state newer than the decided screen: that one holds, not this.
  if (!carriedFromDecided && (current.baseline_screen_id ?? '') > decided.screen_id) return;
  const { verdict } = judgeAgainstBaseline(decided, current);
  if (verdict.kind !== 'carry') return;
  const entry = { ...carriedEntry(decided, verdict, isoSeconds(at)), override: carriedFromDecided };
  const bytes = historyEntryBytes(entry);
  const [pendingPk, pendingSk] = indexAttributes('pendingScreens');
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.screen(current.tenant_id, current.screen_id),
        UpdateExpression:
          'SET disposition = :entry, decision_version = if_not_exists(history_count, :zero) + :one, ' +
          'history = list_append(if_not_exists(history, :empty), :entries), ' +
          'history_count = if_not_exists(history_count, :zero) + :one, ' +
          'history_bytes = if_not_exists(history_bytes, :zero) + :bytes, decision_source_screen_id = :source ' +
          `REMOVE ${pendingPk}, ${pendingSk}, approval`,
        // Still as read: undecided, or still holding the decision carried from the decided screen.
        ConditionExpression: carriedFromDecided
          ? 'disposition.author.#role = :system AND decision_source_screen_id = :source'
          : 'attribute_exists(pk) AND attribute_not_exists(disposition)',
        ...(carriedFromDecided ? { ExpressionAttributeNames: { '#role': 'role' } } : {}),
        ExpressionAttributeValues: {
          ':entry': entry,
          ':entries': [entry],
          ':empty': [],
          ':zero': 0,
          ':one': 1,
          ':bytes': bytes,
          ':source': decided.screen_id,
          ...(carriedFromDecided ? { ':system': SYSTEM_ACTOR.role } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    await noteScreenDecision(table, parseScreenItem(Attributes ?? {}), at);
  } catch (error) {
    // Decided or re-screened meanwhile: what is there now stands.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
