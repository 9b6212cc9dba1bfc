import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { CheckType } from '../watchlists/types.ts';

/**
 * The screened person as given (trimmed); absent fields are omitted. Parsed with this schema where
 * it is read from a table item (a screen, a subject row).
 */
export const SubjectSchema = v.object({
  name: v.string(),
  dob: v.optional(v.string()),
  nationality: v.optional(v.string()),
  location: v.optional(v.string()),
  alias: v.optional(v.string()),
});
export type Subject = v.InferOutput<typeof SubjectSchema>;

/** Case, width and spacing do not make another person: "  JOHN  smith" is "john smith". */
export function normaliseText(text: string | undefined): string {
  return (text ?? '').normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * The key of the rescreen window (docs/api-decisions.md#rescreen-window): the same normalised name, dob, nationality,
 * location, alias and check types give the same hash. The normalisation is deliberately
 * narrower than the matcher's (no diacritic folding or name reordering): a cached result must be
 * exactly what a fresh screen of that input would have returned. The hash keeps names out of
 * the table's keys.
 */
export function subjectHash(subject: Subject, types: readonly CheckType[]): string {
  const canonical = [
    normaliseText(subject.name),
    subject.dob ?? '',
    normaliseText(subject.nationality),
    normaliseText(subject.location),
    normaliseText(subject.alias),
    [...types].sort().join(','),
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}
