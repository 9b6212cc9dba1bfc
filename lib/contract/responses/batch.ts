import * as v from 'valibot';
import type { BatchEventData } from '../../batch/progress-stream.ts';
import { batchId, clientId, riskLevel, screenId } from './fields.ts';

/** The events of the batch streams. */

/** The Server-Sent Events of the batch streams, by event name. */
export const BatchEventSchemas = {
  start: v.strictObject({ batch_id: batchId, total: v.number() }),
  progress: v.strictObject({
    batch_id: batchId,
    index: v.number(),
    completed: v.number(),
    total: v.number(),
    screen_id: screenId,
    risk_level: riskLevel,
    skipped: v.boolean(),
    client_id: v.optional(clientId),
  }),
  error: v.strictObject({ batch_id: batchId, index: v.number(), detail: v.string() }),
  complete: v.strictObject({
    batch_id: batchId,
    total: v.number(),
    completed: v.number(),
    failed: v.number(),
    risk_counts: v.strictObject({
      CRITICAL: v.number(),
      HIGH: v.number(),
      MEDIUM: v.number(),
      LOW: v.number(),
      CLEAR: v.number(),
    }),
    complete: v.optional(
      v.pipe(
        v.literal(false),
        v.description('Present (false) when the stream stopped before every subject was reported'),
      ),
    ),
    reason: v.optional(
      v.pipe(
        v.string(),
        v.description(
          'Why the stream stopped early, e.g. `the user was disabled` (the batch then stops too: its unscreened subjects are refunded)',
        ),
      ),
    ),
    detail: v.optional(v.string()),
  }),
};

/**
 * The batch stream's events (lib/batch/progress-stream.ts `BatchEventData`) are what the document
 * describes: an event whose data the schema would not accept is a type error here.
 */
export const BATCH_EVENTS_DESCRIBED = {
  start: true,
  progress: true,
  error: true,
  complete: true,
} as const satisfies {
  [K in keyof BatchEventData]: BatchEventData[K] extends v.InferInput<(typeof BatchEventSchemas)[K]>
    ? true
    : never;
};
