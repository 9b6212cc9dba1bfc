import * as v from 'valibot';
import { isWellFormedText, MALFORMED_TEXT_MESSAGE, stripControls } from './text-input.ts';

/**
 * Field rules every request body and query shares (screens, users, clients, settings, batches).
 * Each failure message reads well after "field: " (the validation middleware prefixes the field
 * path), so a 400 names the field.
 */

/** Message for the object itself: not an object, a missing required field, or an unknown field. */
/**
 * A JSON object body with exactly these fields: arrays are refused as a whole (valibot would
 * otherwise read an array's indexes as unknown fields) and unknown fields are named in the 400.
 */
export function strictBody<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  const guard = v.custom<Record<string, unknown>>(
    (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
    'must be a JSON object',
  );
  const object = v.strictObject(entries, objectMessage);
  guardedBodies.set(guard, object);
  return v.pipe(guard, object);
}

/**
 * The object each `strictBody` guard stands before: JSON Schema cannot render the guard itself,
 * so the OpenAPI document (lib/openapi/document.ts) renders the object in its place.
 */
export const guardedBodies = new WeakMap<object, v.GenericSchema>();

export function objectMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.expected === 'never') return 'is not a known field (check the spelling)';
  if (issue.received === 'undefined' && issue.expected?.startsWith('"')) return 'is required';
  return 'must be a JSON object';
}

/**
 * A one-line text field: control characters stripped, runs of spaces collapsed, trimmed, refused
 * when not well-formed Unicode (lib/common/text-input.ts); exported for every body that takes
 * names (users, clients).
 */
export const trimmed = (
  max: number,
  what: string,
  description = `${what}, at most ${max} characters`,
  /** JSON Schema keywords the raw text must meet too (the OpenAPI document shows them), e.g. `{ minLength: 2 }`. */
  inputRules: Record<string, unknown> = {},
) =>
  v.pipe(
    v.string(`must be a string (${what})`),
    // Descriptions stand before any transform: the OpenAPI document renders a body as its input type.
    v.description(description),
    v.metadata(inputRules),
    v.check(isWellFormedText, MALFORMED_TEXT_MESSAGE),
    v.transform((text) => stripControls(text).replace(/\s+/g, ' ').trim()),
    v.maxLength(max, `must be at most ${max} characters`),
  );

/** Optional free-text field; null and blank are treated as not given. */
export const optionalText = (max: number, what: string) =>
  v.pipe(
    v.nullish(trimmed(max, what)),
    v.description(`Optional: ${what}, at most ${max} characters; null or blank is not given`),
    v.transform((value) => (value ? value : undefined)),
  );

/** True for a real calendar date in the form YYYY-MM-DD (2023-02-30 is not one). */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * An optional whole number from `min` to `max` (omitted or `null` becomes `undefined`); each
 * message names what the field expects, so a 400 says how to fix it.
 */
export const optionalWholeNumber = (
  min: number,
  max: number,
  messages: { type: string; min: string; max: string },
  description: string,
) =>
  v.pipe(
    v.nullish(
      v.pipe(
        v.number(messages.type),
        v.integer(messages.type),
        v.minValue(min, messages.min),
        v.maxValue(max, messages.max),
      ),
    ),
    v.description(description),
    v.transform((value) => value ?? undefined),
  );

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;

/** Query of GET /screens and GET /screens/pending (limit default 50, max 200: docs/api-decisions.md#pagination). */
export const ListQuerySchema = v.object({
  limit: v.pipe(
    v.optional(v.string(), String(LIST_LIMIT_DEFAULT)),
    v.description(`Rows per page, 1 to ${LIST_LIMIT_MAX}`),
    // A query parameter is text in the URL; the OpenAPI document states it as the integer it is read as.
    v.metadata({ type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT }),
    v.check(
      (text) => /^\d{1,6}$/.test(text.trim()),
      `must be a whole number between 1 and ${LIST_LIMIT_MAX}`,
    ),
    v.transform((text) => Number(text.trim())),
    v.minValue(1, `must be a whole number between 1 and ${LIST_LIMIT_MAX}`),
    v.maxValue(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`),
  ),
  cursor: v.optional(
    v.pipe(
      v.string(),
      v.description('The `next_cursor` of the previous page; omit for the first page'),
      v.maxLength(1000, 'is not a cursor this service issued'),
    ),
  ),
});

export type ListQuery = v.InferOutput<typeof ListQuerySchema>;
