import * as v from 'valibot';
import { BATCH_ID_PATTERN, CLIENT_ID_PATTERN, RUN_ID_PATTERN, SCREEN_ID_PATTERN } from '../../common/ids.ts';
import { RISK_ORDER } from '../../matcher/types.ts';
import { ActorSchema as StoredActorSchema } from '../../screening/screen-record.ts';
import { SubjectSchema as StoredSubjectSchema } from '../../screening/subject.ts';
import { CHECK_TYPES } from '../../watchlists/types.ts';

/** The fields the response schemas share: ids, timestamps, cursors, subject, actor, the error body. */

export const riskLevel = v.picklist(RISK_ORDER);
/** ISO 8601 with seconds and a zone (`Z` or `+00:00`): JSON Schema's `date-time`. */
export const timestamp = v.pipe(v.string(), v.isoTimestamp());
export const screenId = v.pipe(v.string(), v.regex(SCREEN_ID_PATTERN));
export const clientId = v.pipe(v.string(), v.regex(CLIENT_ID_PATTERN));
export const batchId = v.pipe(v.string(), v.regex(BATCH_ID_PATTERN));
export const runId = v.pipe(v.string(), v.regex(RUN_ID_PATTERN));
export const checkTypes = v.array(v.picklist(CHECK_TYPES));
export const cursor = v.pipe(
  v.nullable(v.string()),
  v.description('Pass as `cursor` for the next page; null on the last page.'),
);

/**
 * The stored subject and actor shapes (parsed on the way out of the table), as strict response
 * objects: a field the API does not declare fails the contract tests.
 */
export const SubjectSchema = v.strictObject(StoredSubjectSchema.entries);
export const ActorSchema = v.strictObject(StoredActorSchema.entries);

/** Every error: a 4xx or 5xx answers `{ detail }`, never internals. */
export const ErrorBodySchema = v.pipe(
  v.strictObject({ detail: v.string() }),
  v.description('Every error response: what went wrong, naming the field for a 400.'),
);
