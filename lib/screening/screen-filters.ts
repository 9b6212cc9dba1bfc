import * as v from 'valibot';
import { MOMENT_RULE, parseMoment } from '../common/export-query.ts';
import { ListQuerySchema } from '../common/fields.ts';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import { RISK_ORDER, type RiskLevel } from '../matcher/types.ts';
import { CHECK_TYPES, type CheckType, LIST_IDS, type ListId } from '../watchlists/types.ts';
import { SCREEN_ORIGINS, type ScreenOrigin } from './screen-origin.ts';

/**
 * The filters of GET /screens and GET /screens/pending (the analysts' alert queue), validated at
 * the edge, and the DynamoDB condition each becomes. A comma-separated value means any of them
 * (`risk_level=HIGH,CRITICAL`); filters given together must all hold.
 */

/** The origins a filter names: how a screen came about, and `list_change` for the re-screens a list sync started. */
export const ORIGIN_FILTERS = [...SCREEN_ORIGINS, 'list_change'] as const;
export type OriginFilter = (typeof ORIGIN_FILTERS)[number];

/**
 * Items one filtered page reads at most (before the filters), so a filter that matches little
 * costs a bounded read: the page may then hold fewer rows than `limit`, even none, with a
 * `next_cursor` to read on from.
 */
export const FILTERED_READ_LIMIT = 2000;

/** A comma-separated subset of `allowed` (any case), each at most once; the message names what is allowed. */
const subsetOf = <const T extends string>(allowed: readonly T[], description: string, upper = false) =>
  v.optional(
    v.pipe(
      v.string(),
      v.description(description),
      v.maxLength(400, `must be a comma-separated subset of ${allowed.join(', ')}`),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const entries = dataset.value
          .split(',')
          .map((entry) => entry.trim())
          .map((entry) => (upper ? entry.toUpperCase() : entry.toLowerCase()));
        const unknown = entries.find((entry) => !(allowed as readonly string[]).includes(entry));
        if (unknown !== undefined) {
          addIssue({
            message: `${unknown === '' ? 'an empty entry' : `"${unknown}"`} is not one of ${allowed.join(', ')}`,
          });
          return NEVER;
        }
        return [...new Set(entries)] as T[];
      }),
    ),
  );

const flag = (description: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.description(description),
      v.transform((text) => text.trim().toLowerCase()),
      v.picklist(['true', 'false'], 'must be true or false'),
      v.transform((text) => text === 'true'),
    ),
  );

/** Query of GET /screens and GET /screens/pending: the page (limit, cursor) and the filters. */
export const ScreenListQuerySchema = v.object({
  ...ListQuerySchema.entries,
  risk_level: subsetOf(
    RISK_ORDER,
    `Only screens at these risk levels: a comma-separated subset of ${RISK_ORDER.join(', ')} (any case)`,
    true,
  ),
  check: subsetOf(
    CHECK_TYPES,
    `Only screens where one of these checks found a match (its result above CLEAR): a comma-separated subset of ${CHECK_TYPES.join(', ')}`,
  ),
  list: subsetOf(
    LIST_IDS,
    'Only screens with a match listed on one of these lists (a linked listing counts): comma-separated list ids as /dbstatus names them. Screens stored before list ids were recorded on screens never match',
  ),
  origin: subsetOf(
    ORIGIN_FILTERS,
    '`api` (POST /screen), `batch`, `client_registration`, `rescreen` (every re-screen of a registered client) or `list_change` (the re-screens a list sync started); comma-separated for several',
  ),
  awaiting_approval: flag(
    '`true`: only screens whose decision waits for an admin’s approval (none is pending: use it on GET /screens); `false`: none of those',
  ),
  since: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Only screens made at or after this moment: a date (its first instant, UTC) or an ISO 8601 time with offset',
      ),
      v.maxLength(40, MOMENT_RULE),
      v.check((text) => parseMoment(text.trim()) !== undefined, MOMENT_RULE),
      v.transform((text) => isoSeconds((parseMoment(text.trim()) as { at: Date }).at)),
    ),
  ),
});

export type ScreenListQuery = v.InferOutput<typeof ScreenListQuerySchema>;

export interface ScreenFilters {
  risk_level?: RiskLevel[];
  check?: CheckType[];
  list?: ListId[];
  origin?: OriginFilter[];
  awaiting_approval?: boolean;
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  since?: string;
  /** Only screens carrying a monitoring alert (GET /alerts; no query parameter of the screen lists). */
  carries_alert?: true;
  /** Only alerts raised at or after this moment (`YYYY-MM-DDThh:mm:ssZ`; GET /alerts' `since`). */
  alert_raised_since?: string;
}

const FILTER_NAMES = [
  'risk_level',
  'check',
  'list',
  'origin',
  'awaiting_approval',
  'since',
  'carries_alert',
  'alert_raised_since',
] as const satisfies readonly (keyof ScreenFilters)[];

/** Whether any filter is set (an unfiltered page reads only the rows it returns). */
export function isFiltered(filters: ScreenFilters): boolean {
  return FILTER_NAMES.some((name) => filters[name] !== undefined);
}

const RESULT_ATTRIBUTE: Record<CheckType, string> = {
  sanctions: 'sanctions_result',
  pep: 'pep_result',
  criminal: 'criminal_result',
};

/** A FilterExpression with its names and values. */
export interface FilterCondition {
  expression: string | undefined;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * The DynamoDB filter of a set of filters. Every attribute it reads is on the screen item
 * (lib/screening/screen-subject.ts writes `matched_lists` and `rescreen_trigger` for the list and
 * list-change filters).
 */
export function filterCondition(filters: ScreenFilters): FilterCondition {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts: string[] = [];
  let n = 0;
  const value = (v: unknown) => {
    const key = `:f${n++}`;
    values[key] = v;
    return key;
  };
  const name = (attribute: string) => {
    const key = `#f_${attribute}`;
    names[key] = attribute;
    return key;
  };
  const anyOf = (conditions: string[]) =>
    conditions.length === 1 ? conditions[0] : `(${conditions.join(' OR ')})`;

  if (filters.risk_level)
    parts.push(`${name('risk_level')} IN (${filters.risk_level.map((level) => value(level)).join(', ')})`);
  if (filters.check) {
    const clear = value('CLEAR');
    parts.push(
      anyOf(
        filters.check.map((check) => {
          const path = `${name(RESULT_ATTRIBUTE[check])}.${name('risk_level')}`;
          return `(attribute_exists(${path}) AND ${path} <> ${clear})`;
        }),
      ),
    );
  }
  if (filters.list)
    parts.push(anyOf(filters.list.map((list) => `contains(${name('matched_lists')}, ${value(list)})`)));
  if (filters.origin) {
    const conditions = filters.origin.map((origin) =>
      origin === 'list_change'
        ? `(${name('origin')} = ${value('rescreen')} AND ${name('rescreen_trigger')} = ${value('list_change')})`
        : origin === 'api'
          ? // Screens stored before origins were recorded came through POST /screen or a batch.
            `(${name('origin')} = ${value('api')} OR attribute_not_exists(${name('origin')}))`
          : `${name('origin')} = ${value(origin satisfies ScreenOrigin)}`,
    );
    parts.push(anyOf(conditions));
  }
  if (filters.awaiting_approval !== undefined) {
    const awaiting = `(attribute_exists(${name('disposition')}) AND ${name('disposition')}.${name('approval_requested')} = ${value(true)} AND attribute_not_exists(${name('approval')}))`;
    parts.push(filters.awaiting_approval ? awaiting : `NOT ${awaiting}`);
  }
  if (filters.since) parts.push(`${name('screened_at')} >= ${value(filters.since)}`);
  if (filters.carries_alert) parts.push(`attribute_exists(${name('alert_since')})`);
  if (filters.alert_raised_since)
    parts.push(`${name('alert_since')} >= ${value(filters.alert_raised_since)}`);
  return { expression: parts.length > 0 ? parts.join(' AND ') : undefined, names, values };
}

/**
 * The first screen id day a `since` can reach: the day before it, since a batch draws its screen
 * ids when it starts and may screen a subject after midnight (the filter on `screened_at` is exact).
 */
export function earliestScreenDay(since: string): string {
  const day = new Date(new Date(since).getTime() - DAY_MS);
  return day.toISOString().slice(0, 10).replaceAll('-', '');
}
