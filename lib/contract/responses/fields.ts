import * as v from 'valibot';
import { ERROR_CODES, type ErrorCode } from '../../common/errors.ts';
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

/** The problem-details fields of every error body (lib/http/error-response.ts). */
export const problemEntries = {
  type: v.pipe(
    v.literal('about:blank'),
    v.description('RFC 9457: no type of its own; `code` says which problem'),
  ),
  title: v.pipe(v.string(), v.description('The HTTP status phrase')),
  status: v.pipe(v.number(), v.integer(), v.description('The HTTP status code, repeated')),
  code: v.pipe(
    v.picklist(Object.keys(ERROR_CODES) as ErrorCode[]),
    v.description(
      'Stable and machine-readable: branch on it, not on `detail` (docs/api-guide.md#error-codes lists each)',
    ),
  ),
  detail: v.pipe(v.string(), v.description('What went wrong, in words; a 400 names the field or parameter')),
  instance: v.optional(v.pipe(v.string(), v.description('The path the request asked for'))),
  errors: v.optional(
    v.pipe(
      v.array(
        v.strictObject({
          field: v.pipe(
            v.string(),
            v.description('The field or query parameter: `dob`, `subjects[3].name`, `limit`'),
          ),
          code: v.pipe(
            v.string(),
            v.description(
              'The rule it broke: `required`, `unknown_field`, or the validation’s own name of it (`min_length`, `max_length`, `regex`, `picklist`, `check`, `string`, ...)',
            ),
          ),
          message: v.pipe(v.string(), v.description('The rule in words, as the `detail` says it')),
        }),
      ),
      v.description(
        'On a 400 that found broken fields: each field and rule, beside the `detail` that lists them',
      ),
    ),
  ),
};

/** Every error: a 4xx or 5xx answers problem details (RFC 9457) with a `code`, never internals. */
export const ErrorBodySchema = v.pipe(
  v.strictObject(problemEntries),
  v.description(
    'Every error response: RFC 9457 problem details with a stable `code` beside the `detail`, which names the field for a 400.',
  ),
);
