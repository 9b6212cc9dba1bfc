import * as v from 'valibot';
import type { BatchEventData } from '../../batch/progress-stream.ts';
import {
  ActorSchema,
  batchId,
  checkTypes,
  clientId,
  cursor,
  riskLevel,
  screenId,
  timestamp,
} from './fields.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

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

/** A batch as GET /batch lists it (lib/batch/batches-read.ts `BatchSummary`). */
const batchSummaryEntries = {
  batch_id: batchId,
  purpose: v.pipe(
    v.picklist(['screen', 'register-clients']),
    v.description('`screen`: POST /batch/stream; `register-clients`: POST /batch/clients/stream'),
  ),
  status: v.pipe(
    v.picklist(['running', 'finished']),
    v.description('`finished` once every subject is screened or failed'),
  ),
  total: count,
  finished: v.pipe(count, v.description('Subjects finished so far, screened or failed')),
  skipped: v.pipe(
    count,
    v.description('Of those, answered by an earlier screen inside the rescreen window (refunded)'),
  ),
  failed: v.pipe(count, v.description('Of those, failed for good (refunded)')),
  types: checkTypes,
  created_at: timestamp,
  created_by: ActorSchema,
};

export const BatchSummarySchema = v.strictObject(batchSummaryEntries);

export const BatchPageSchema = v.strictObject({
  batches: v.array(BatchSummarySchema),
  next_cursor: cursor,
});

export const BatchDetailSchema = v.strictObject({
  ...batchSummaryEntries,
  queued: v.pipe(count, v.description('Subjects not finished yet (queued or being screened)')),
  risk_counts: v.pipe(
    v.strictObject({ CRITICAL: count, HIGH: count, MEDIUM: count, LOW: count, CLEAR: count }),
    v.description('The screened subjects per risk level so far'),
  ),
});

/** One line of GET /batch/{id}/results?format=ndjson (lib/batch/batches-read.ts `BatchResultRow`). */
export const BatchResultRowSchema = v.strictObject({
  row: v.pipe(count, v.description('Position in the request’s `subjects`, from 1')),
  index: v.pipe(count, v.description('Position in the request’s `subjects`, from 0 (the stream’s `index`)')),
  name: v.string(),
  dob: v.nullable(v.string()),
  nationality: v.nullable(v.string()),
  location: v.nullable(v.string()),
  status: v.picklist(['queued', 'processing', 'screened', 'failed']),
  screen_id: v.nullable(screenId),
  risk_level: v.nullable(riskLevel),
  skipped: v.nullable(v.boolean()),
  client_id: v.nullable(clientId),
  matches: v.pipe(
    v.nullable(count),
    v.description('Listed people the screen matched, every check, before each was cut to its 10 strongest'),
  ),
  best_match: v.pipe(
    v.nullable(
      v.strictObject({
        name: v.pipe(v.string(), v.description('The listed person’s primary name')),
        matched_name: v.pipe(v.string(), v.description('The listed name or alias that matched')),
        list_id: v.string(),
        entity_id: v.string(),
        score: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
        risk_level: riskLevel,
        dobs: v.pipe(v.array(v.string()), v.description('The listed dates of birth')),
      }),
    ),
    v.description('The strongest match of the screen (highest risk level, then score); null when none'),
  ),
  error: v.pipe(v.nullable(v.string()), v.description('Why a failed subject failed')),
});
