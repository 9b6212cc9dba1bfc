import * as v from 'valibot';
import {
  isCalendarDate,
  ListQuerySchema,
  optionalText,
  optionalWholeNumber,
  strictBody,
  trimmed,
} from '../common/fields.ts';
import { isWellFormedText, MALFORMED_TEXT_MESSAGE, stripControls } from '../common/text-input.ts';
import { isoDay } from '../common/time.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';
import { MIN_READABLE_LETTERS, readableLetterCount, UNREADABLE_NAME_MESSAGE } from './readable-name.ts';

/**
 * Request schemas of the screening endpoints. Each failure message reads well after
 * "field: " (the validation middleware prefixes the field path), so a 400 names the field.
 *
 * Unknown body fields are REFUSED with a 400 naming them: an integrator who sends `dateOfBirth`
 * instead of `dob` would otherwise screen without the date of birth and silently get more
 * false alerts. Unknown query parameters are refused the same way (lib/http/handler.ts).
 */

export const NAME_MAX_LENGTH = 200;
export const ALIAS_MAX_LENGTH = 200;
export const PLACE_MAX_LENGTH = 100;
export const NOTE_MAX_LENGTH = 4000;
/** Nobody screened today was born before this year; an earlier year is a typing error. */
const EARLIEST_BIRTH_YEAR = 1900;

const DOB_FORMS = 'YYYY-MM-DD, or YYYY-MM or YYYY when only the month or the year is known';

/**
 * A date of birth as precise as the caller knows it: a full date, a year and month, or a year
 * (lists give partial dates too, and the matcher compares each precision with each: a year
 * matches any listed date in it). A real date, not before EARLIEST_BIRTH_YEAR, not in the future.
 */
export function isBirthDate(text: string): boolean {
  if (/^\d{4}$/.test(text)) return true;
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (month) return Number(month[2]) >= 1 && Number(month[2]) <= 12;
  return isCalendarDate(text);
}

const dobSchema = v.pipe(
  v.nullish(
    v.pipe(
      v.string('must be a string in the form YYYY-MM-DD'),
      // For the OpenAPI document (a generated SDK can check the form): the real-date rules stay the server's.
      v.metadata({
        pattern: '^\\s*\\d{4}(-\\d{2}(-\\d{2})?)?\\s*$',
        examples: ['1952-10-07', '1952-10', '1952'],
      }),
      v.trim(),
      // The full date's wording is the one clients have always received; a month gets its own.
      v.check(isBirthDate, (issue) =>
        /^\d{4}-\d{2}$/.test(String(issue.input))
          ? 'must be a real month in the form YYYY-MM'
          : 'must be a real date in the form YYYY-MM-DD',
      ),
      // A partial date is in the future only when its whole month or year is.
      v.check((dob) => dob <= isoDay(new Date()).slice(0, dob.length), 'must not be in the future'),
      v.check(
        (dob) => Number(dob.slice(0, 4)) >= EARLIEST_BIRTH_YEAR,
        `must be ${EARLIEST_BIRTH_YEAR} or later`,
      ),
    ),
  ),
  v.description(
    `Optional date of birth: ${DOB_FORMS}; a real date, ${EARLIEST_BIRTH_YEAR} or later, not in the future`,
  ),
  v.transform((value) => value ?? undefined),
);

/** Parses `types` ("sanctions,pep"): a non-empty subset of the check types, no unknown or repeated entry. */
export function parseCheckTypes(text: string): { types: CheckType[] } | { problem: string } {
  const entries = text.split(',').map((entry) => entry.trim().toLowerCase());
  if (entries.every((entry) => entry === ''))
    return { problem: `must name at least one of ${CHECK_TYPES.join(',')}` };
  const seen = new Set<CheckType>();
  for (const entry of entries) {
    if (!(CHECK_TYPES as readonly string[]).includes(entry)) {
      return {
        problem: `unknown check type "${entry}"; use a comma-separated subset of ${CHECK_TYPES.join(',')}`,
      };
    }
    if (seen.has(entry as CheckType)) return { problem: `"${entry}" is listed twice` };
    seen.add(entry as CheckType);
  }
  // Canonical order, so the same set of checks always hashes and reads the same.
  return { types: CHECK_TYPES.filter((type) => seen.has(type)) };
}

const typesSchema = v.pipe(
  v.nullish(
    v.string(`must be a comma-separated string, a subset of ${CHECK_TYPES.join(',')}`),
    CHECK_TYPES.join(','),
  ),
  v.description(
    `The checks to run: a comma-separated subset of ${CHECK_TYPES.join(',')} (any order and case); default all`,
  ),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed = parseCheckTypes(dataset.value);
    if ('problem' in parsed) {
      addIssue({ message: parsed.problem });
      return NEVER;
    }
    return parsed.types;
  }),
);

/** An absent or null flag is false (a default makes valibot run the schema for a missing key). */
const booleanFlag = (description: string) =>
  v.pipe(v.nullish(v.boolean('must be true or false'), false), v.description(description));

/**
 * The subject fields of POST /screen (docs/api-decisions.md#request-bodies), exported so the batch endpoints validate each
 * subject with the very same rules.
 */
export const subjectFields = {
  name: v.pipe(
    trimmed(
      NAME_MAX_LENGTH,
      'the full name',
      `The person’s full name, 2 to ${NAME_MAX_LENGTH} characters with at least 2 letters screening can read`,
      { minLength: 2 },
    ),
    v.minLength(2, 'must be at least 2 characters'),
    v.check((name) => readableLetterCount(name) >= MIN_READABLE_LETTERS, UNREADABLE_NAME_MESSAGE),
  ),
  dob: dobSchema,
  nationality: optionalText(PLACE_MAX_LENGTH, 'a nationality'),
  location: optionalText(PLACE_MAX_LENGTH, 'a city or country'),
  alias: optionalText(ALIAS_MAX_LENGTH, 'an alternative name'),
};

/** `types` of POST /screen and the batch bodies: a string, parsed to the check types in canonical order. */
export const checkTypesField = typesSchema;

/** Body of POST /screen (docs/api-decisions.md#request-bodies). */
export const ScreenRequestSchema = strictBody({
  ...subjectFields,
  types: typesSchema,
  force: booleanFlag('Screen afresh (and charge) even inside the rescreen window; default false'),
});

export type ScreenRequest = v.InferOutput<typeof ScreenRequestSchema>;

export const DISPOSITIONS = [
  'confirmed_hit',
  'false_positive',
  'needs_review',
  'cleared',
  'approved',
] as const;
export type DispositionValue = (typeof DISPOSITIONS)[number];

/** Body of POST /screens/{screen_id}/dispose (docs/api-decisions.md#request-bodies). */
export const DisposeRequestSchema = strictBody({
  disposition: v.pipe(
    v.picklist(DISPOSITIONS, `must be one of ${DISPOSITIONS.join(', ')}`),
    v.description('The decision; `approved` (admins only) signs off the decision in force'),
  ),
  note: v.pipe(
    v.nullish(
      v.pipe(
        v.string('must be a string (analyst notes)'),
        v.check(isWellFormedText, MALFORMED_TEXT_MESSAGE),
        v.transform((text) => stripControls(text, true).trim()),
        v.maxLength(NOTE_MAX_LENGTH, `must be at most ${NOTE_MAX_LENGTH} characters`),
      ),
    ),
    v.description(`The analyst’s note, at most ${NOTE_MAX_LENGTH} characters (line breaks kept)`),
    v.transform((value) => (value ? value : undefined)),
  ),
  override: booleanFlag('Replace the disposition in force; default false'),
  approval_requested: booleanFlag('Mark the decision as awaiting an admin’s sign-off; default false'),
  /**
   * With `approved`, optional: the `decision_version` of the decision the admin reviewed, so a
   * sign-off can never land on a decision that replaced it in the meantime. Without it (the
   * contract's body), the decision in force when the request arrives is signed off
   * (lib/screening/dispose.ts).
   */
  approves_version: optionalWholeNumber(
    1,
    1_000_000,
    {
      type: 'must be a whole number (the decision_version you reviewed)',
      min: 'must be 1 or more',
      max: 'is not a version of this screen',
    },
    'With `approved` only, optional (the precise form): the `decision_version` of the decision the admin reviewed; 409 when another decision replaced it meanwhile. Without it (the contract’s body), the decision in force when the request arrives is signed off, whether or not approval was requested',
  ),
});

export type DisposeRequest = v.InferOutput<typeof DisposeRequestSchema>;

/**
 * Query of DELETE /screens/{screen_id}: the reason a decided screen is deleted, which the tenant's
 * policy may require (`approval.delete_decided.reason_required`: docs/policies.md); recorded on the
 * audit trail as its SHA-256.
 */
export const DeleteQuerySchema = v.object({
  reason: optionalText(
    NOTE_MAX_LENGTH,
    'Why the screen is deleted; required for a decided screen when the tenant’s policy says so (recorded as its SHA-256)',
  ),
});

/**
 * Query of GET /screens/{screen_id}/matches: which check's further matches to page (sanctions when
 * not given), and the page (limit default 50, max 200; cursor).
 */
export const MoreMatchesQuerySchema = v.object({
  check: v.pipe(
    v.optional(v.string(), 'sanctions'),
    v.description(
      'The check whose matches beyond the stored strongest 10 to page: sanctions (the default), pep or criminal',
    ),
    v.metadata({ enum: [...CHECK_TYPES], default: 'sanctions' }),
    v.transform((text) => text.trim().toLowerCase()),
    v.picklist(CHECK_TYPES, `must be one of ${CHECK_TYPES.join(', ')}`),
  ),
  ...ListQuerySchema.entries,
});
