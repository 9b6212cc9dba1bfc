import * as v from 'valibot';
import { sha256Hex } from './audit.ts';
import { screenId } from './fields.ts';
import { ScreenHistorySchema, ScreenSchema } from './screens.ts';

/** The records of the exports: GET /audit/export and GET /screens/export (lib/audit/export-format.ts, lib/screening/export.ts). */

const exportPeriodEntries = {
  tenant_id: v.string(),
  from: v.pipe(v.string(), v.description('Start of the period, inclusive (ISO 8601 UTC)')),
  to: v.pipe(v.string(), v.description('End of the period, exclusive (ISO 8601 UTC)')),
  format: v.picklist(['ndjson', 'csv']),
  exported_at: v.string(),
  count: v.pipe(v.number(), v.description('Records exported before this one')),
  complete: v.pipe(
    v.boolean(),
    v.description(
      'False when the export stopped early: at the function’s time limit (`detail` says where to resume), or because the user exporting was disabled or their key rotated or revoked while it ran',
    ),
  ),
  reason: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Why an incomplete export stopped, e.g. `the user was disabled`, `the user’s API key was rotated or revoked`, `the function’s time limit`',
      ),
    ),
  ),
  detail: v.optional(v.string()),
};

const neighbour = <T extends v.ObjectEntries>(entries: T) =>
  v.nullable(v.strictObject({ seq: v.number(), at: v.string(), ...entries }));

/** The last record of GET /audit/export (lib/audit/export-format.ts). */
export const AuditExportEndSchema = v.strictObject({
  type: v.literal('export_end'),
  export: v.literal('audit'),
  ...exportPeriodEntries,
  first_seq: v.nullable(v.number()),
  last_seq: v.nullable(v.number()),
  prev_hash_before_first: v.pipe(
    v.nullable(sha256Hex),
    v.description('The prev_hash the first exported entry carries: the hash of the entry before the period'),
  ),
  head_hash: v.pipe(v.nullable(sha256Hex), v.description('The last exported entry’s hash')),
  entry_before: v.pipe(
    neighbour({ hash: sha256Hex }),
    v.description('The last entry before the period (null when the period starts at entry 1)'),
  ),
  entry_after: v.pipe(
    neighbour({ prev_hash: sha256Hex }),
    v.description('The first entry at or after `to` (null when the period reaches the chain head)'),
  ),
  chain_head_seq: v.pipe(v.number(), v.description('The trail’s last entry when the export began')),
  chain_head_hash: v.nullable(sha256Hex),
  anchor: v.pipe(
    v.nullable(
      v.strictObject({
        tenant_id: v.string(),
        seq: v.number(),
        hash: sha256Hex,
        anchored_at: v.pipe(v.string(), v.description('ISO 8601 UTC')),
      }),
    ),
    v.description(
      'The newest chain head published outside the table (an Object Lock bucket) when the export ended; keep it and check it later with verify-audit --expect-count/--expect-head',
    ),
  ),
});

/** The last record of GET /screens/export (lib/screening/export.ts). */
export const ScreensExportEndSchema = v.strictObject({
  type: v.literal('export_end'),
  export: v.literal('screens'),
  ...exportPeriodEntries,
  first_screen_id: v.nullable(screenId),
  last_screen_id: v.nullable(screenId),
  sha256: v.pipe(
    sha256Hex,
    v.description('SHA-256 of every screen record’s canonical JSON followed by a line feed, in export order'),
  ),
});

/** One screen of GET /screens/export: the screen and its whole history. */
export const ScreenExportRecordSchema = v.strictObject({
  ...ScreenSchema.entries,
  history: ScreenHistorySchema.entries.history,
});

/** Written instead of export_end when the export failed part way (the file is incomplete). */
export const ExportErrorSchema = v.strictObject({ type: v.literal('export_error'), detail: v.string() });
