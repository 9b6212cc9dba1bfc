import * as v from 'valibot';
import { InvalidRequestError } from '../common/errors.ts';
import { objectMessage } from '../common/fields.ts';
import { validate } from '../common/validation.ts';
import { checkTypesField, subjectFields } from '../screening/request.ts';

/** A batch request holds at most 500 subjects (docs/api-decisions.md#request-bodies). */
export const MAX_BATCH_SUBJECTS = 500;

/**
 * One subject of a batch: the very fields and rules of POST /screen (name of at least 2
 * characters, dob as a real date, ...), so a subject accepted one by one is accepted in a batch.
 */
export const BatchSubjectSchema = v.strictObject(subjectFields, objectMessage);

/** Body of POST /batch/stream (docs/api-decisions.md#request-bodies). */
/** A batch's `subjects`: 1 to MAX_BATCH_SUBJECTS objects of the given schema. */
export function subjectList<const TSubject extends v.GenericSchema>(subject: TSubject) {
  return v.pipe(
    v.array(subject, 'must be an array of subject objects'),
    v.minLength(1, 'must hold at least one subject'),
    v.maxLength(MAX_BATCH_SUBJECTS, `must hold at most ${MAX_BATCH_SUBJECTS} subjects`),
  );
}

export const BatchRequestSchema = v.strictObject(
  {
    subjects: subjectList(BatchSubjectSchema),
    types: checkTypesField,
  },
  objectMessage,
);

export type BatchRequest = v.InferOutput<typeof BatchRequestSchema>;
export type BatchSubject = v.InferOutput<typeof BatchSubjectSchema>;

/**
 * Validates the whole batch before any work starts: a 400 names the subject index and field of
 * every problem found (the first five), e.g. `subjects[3].name: must be at least 2 characters`.
 */
export function validateBatchRequest(input: unknown): BatchRequest {
  if (input === undefined) throw new InvalidRequestError('body: must be a JSON object with a subjects array');
  return validate(BatchRequestSchema, input, 'body');
}
