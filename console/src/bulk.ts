import { api, ok } from './api.ts';
import type { paths } from './generated/openapi.ts';

export type DisposeBody = NonNullable<
  paths['/screens/{screen_id}/dispose']['post']['requestBody']
>['content']['application/json'];
export type Decision = 'confirmed_hit' | 'false_positive' | 'needs_review' | 'cleared';
export const DECISIONS: { value: Decision; label: string }[] = [
  { value: 'confirmed_hit', label: 'Confirmed hit' },
  { value: 'false_positive', label: 'False positive' },
  { value: 'needs_review', label: 'Needs review' },
  { value: 'cleared', label: 'Cleared' },
];

/** What one screen of a bulk decision came to: recorded (awaiting an admin's approval, if a rule asks), or the API's detail. */
export interface Outcome {
  screen_id: string;
  awaiting_approval?: boolean;
  error?: string;
}

/** Requests in flight at once: a page of 25 takes a few seconds without crowding the API's rate. */
const CONCURRENCY = 4;

/**
 * One decision and note recorded on each screen through its own POST /screens/{id}/dispose, a few
 * at a time: each screen gets its own decision, audit entry (written in the same transaction) and
 * four-eyes rule, exactly as one at a time. A refusal is kept per screen and the rest go on.
 */
export async function bulkDispose(ids: string[], body: DisposeBody, onEach?: () => void): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(ids.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < ids.length) {
      const i = nextIndex++;
      const screen_id = ids[i];
      try {
        const answer = ok(
          await api.POST('/screens/{screen_id}/dispose', { params: { path: { screen_id } }, body }),
        );
        outcomes[i] = { screen_id, awaiting_approval: Boolean(answer.disposition?.awaiting_approval) };
      } catch (error) {
        outcomes[i] = { screen_id, error: (error as Error).message };
      }
      onEach?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
  return outcomes;
}
