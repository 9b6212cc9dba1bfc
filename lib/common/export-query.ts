import * as v from 'valibot';
import { InvalidRequestError } from './errors.ts';
import { DAY_MS } from './time.ts';

/**
 * What GET /audit/export and GET /screens/export read: the period (`from` inclusive, `to`
 * exclusive) and the file format. Shared by both exports, so they take the same periods.
 */

/** Most days one export may span: a year (a leap year's too), an examiner's usual period. */
export const EXPORT_MAX_SPAN_DAYS = 366;
/** The period when `from` is not given: the 30 days before `to`. */
export const EXPORT_DEFAULT_SPAN_DAYS = 30;

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A time must say its offset: a time without one would mean a different instant to each reader.
const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;
export const MOMENT_RULE =
  'must be a date (YYYY-MM-DD, a whole UTC day) or an ISO 8601 time with its offset (2026-03-01T09:30:00Z)';

/** An optional `from`/`to`-style moment of a period (the exports, a policy proposal's `since`/`until`). */
export const moment = (description: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.description(description),
      v.maxLength(40, MOMENT_RULE),
      v.check((text) => parseMoment(text.trim()) !== undefined, MOMENT_RULE),
    ),
  );

/** Query of both exports. */
export const ExportQuerySchema = v.object({
  from: moment(
    `Start of the period, inclusive: a date (its first instant, UTC) or an ISO 8601 time with offset. Default: ${EXPORT_DEFAULT_SPAN_DAYS} days before \`to\``,
  ),
  to: moment(
    'End of the period, exclusive: a date (the period then includes that whole day, UTC) or an ISO 8601 time with offset. Default: now',
  ),
  format: v.optional(
    v.pipe(
      v.string(),
      v.description('`ndjson` or `csv`; wins over the Accept header (`application/x-ndjson`, `text/csv`)'),
      v.picklist(EXPORT_FORMATS, 'must be ndjson or csv'),
    ),
  ),
});
export type ExportQuery = v.InferOutput<typeof ExportQuerySchema>;

export interface Moment {
  at: Date;
  /** A date alone: a whole UTC day. */
  wholeDay: boolean;
}

/** The instant a `from`/`to` value names, or undefined when it is not a real date or time. */
export function parseMoment(text: string): Moment | undefined {
  const date = DATE.exec(text);
  if (date) {
    const at = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])));
    // 2026-02-30 rolls over to March in Date.UTC: a real calendar date round-trips.
    return at.toISOString().startsWith(text) ? { at, wholeDay: true } : undefined;
  }
  const time = TIME.exec(text);
  if (!time) return undefined;
  const [, year, month, day, hour, minute, second = '00'] = time;
  const probe = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (!probe.toISOString().startsWith(`${year}-${month}-${day}`)) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : { at, wholeDay: false };
}

/** An export's period: `from` inclusive, `to` exclusive, both ISO 8601 UTC with milliseconds. */
export interface ExportPeriod {
  from: string;
  to: string;
}

/**
 * The period a query asks for: a date as `from` is the first instant of that UTC day, a date as
 * `to` the first instant of the day after (so `from=2026-01-01&to=2026-01-31` is January whole);
 * `to` defaults to now, `from` to 30 days before `to`. 400 when `from` is not before `to` or the
 * span passes a year.
 */
export function exportPeriod(query: Pick<ExportQuery, 'from' | 'to'>, now: Date = new Date()): ExportPeriod {
  const toMoment = query.to ? parseMoment(query.to.trim()) : undefined;
  const to = toMoment
    ? new Date(toMoment.at.getTime() + (toMoment.wholeDay ? DAY_MS : 0))
    : new Date(now.getTime());
  const fromMoment = query.from ? parseMoment(query.from.trim()) : undefined;
  const from = fromMoment ? fromMoment.at : new Date(to.getTime() - EXPORT_DEFAULT_SPAN_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime()) {
    throw new InvalidRequestError(
      `from: must be before to (the period is from ${from.toISOString()} inclusive to ${to.toISOString()} exclusive)`,
    );
  }
  if (to.getTime() - from.getTime() > EXPORT_MAX_SPAN_DAYS * DAY_MS) {
    throw new InvalidRequestError(
      `to: the period may span at most ${EXPORT_MAX_SPAN_DAYS} days (${from.toISOString()} to ${to.toISOString()} is longer); export a longer period in parts`,
    );
  }
  return { from: from.toISOString(), to: to.toISOString() };
}

/**
 * The format: the `format` query parameter when given, else `text/csv` when the Accept header
 * prefers it to `application/x-ndjson`, else NDJSON (also for `*` and any other type).
 */
export function exportFormat(format: ExportFormat | undefined, accept: string | undefined): ExportFormat {
  if (format) return format;
  let best: { format: ExportFormat; q: number } | undefined;
  for (const range of (accept ?? '').split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = Number(params.find((param) => param.startsWith('q='))?.slice(2) ?? '1');
    const named = type === 'text/csv' ? 'csv' : type === 'application/x-ndjson' ? 'ndjson' : undefined;
    if (named && Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { format: named, q };
  }
  return best?.format ?? 'ndjson';
}

/** `audit-tdemo-2026-01-01T00-00-00.000Z-2026-02-01T00-00-00.000Z.ndjson`: a safe file name. */
export function exportFileName(kind: string, tenantId: string, period: ExportPeriod, format: ExportFormat) {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '-');
  return `${kind}-${safe(tenantId)}-${safe(period.from)}-${safe(period.to)}.${format}`;
}
