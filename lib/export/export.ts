import type { AnchorStore } from '../audit/anchor-store.ts';
import { auditExportChunks, exportRecord } from '../audit/export.ts';
import type { AuditExportEnd } from '../audit/export-format.ts';
import { type AuditAction, type AuditDetails, appendAuditEntry, untilChained } from '../audit/trail.ts';
import {
  EXPORT_CONTENT_TYPES,
  type ExportFormat,
  type ExportPeriod,
  type ExportQuery,
  exportFileName,
  exportFormat,
  exportPeriod,
} from '../common/export-query.ts';
import { logger } from '../common/log.ts';
import { type ScreensExportEnd, screensExportChunks } from '../screening/export.ts';
import type { Table } from '../store/table.ts';
import { keyWatch } from '../tenancy/access-recheck.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';

/**
 * GET /audit/export and GET /screens/export, for a tenant's admins: the request is checked (role,
 * period, format) before anything is read or written, so a refusal is a plain JSON 4xx; then the
 * export is recorded on the audit trail before it starts (`audit.export` or `screens.export`,
 * `started`, with the period and format: write-ahead, as every action), its body streams, and its
 * outcome is appended after the last record: `done` with the count and the head hash or digest the
 * file ends with, or `failed` when it stopped before (the client went away, the store failed). An
 * export whose user is disabled, or whose key is rotated or revoked, while it runs ends early with
 * `complete: false` and the reason in its last record and in its `done` entry. The
 * trail thus says who took which records out of the service, and its chain keeps the digest
 * a screens export ends with.
 */

export interface ExportInput {
  query: ExportQuery;
  /** The request's Accept header. */
  accept: string | undefined;
  /** Milliseconds the function has left. */
  remainingMs?: () => number;
  /** Where the audit chain's heads are anchored (the audit export ends with the newest). */
  anchors?: AnchorStore;
  /**
   * The key the export was asked with: re-checked as the export goes (lib/tenancy/access-recheck.ts),
   * so an export whose user is disabled or whose key is revoked part way ends with `complete: false`.
   */
  apiKey: string;
}

export interface ExportStream {
  headers: Record<string, string> & { 'content-type': string };
  text: AsyncIterable<string>;
}

type EndRecord = AuditExportEnd | ScreensExportEnd;

interface ExportKind {
  action: AuditAction;
  file: string;
  what: string;
  chunks: (
    table: Table,
    tenantId: string,
    period: ExportPeriod,
    options: {
      format: ExportFormat;
      remainingMs?: () => number;
      anchors?: AnchorStore;
      summary: { end?: EndRecord };
      accessEnded: () => Promise<string | undefined>;
    },
  ) => AsyncGenerator<string>;
  /** What the `done` entry records of the end record: counts and hashes, nothing personal. */
  recorded: (end: EndRecord) => AuditDetails;
}

const KINDS = {
  audit: {
    action: 'audit.export',
    file: 'audit',
    what: 'Exporting the audit trail',
    chunks: auditExportChunks as ExportKind['chunks'],
    recorded: (end) => {
      const audit = end as AuditExportEnd;
      return {
        count: audit.count,
        first_seq: audit.first_seq,
        last_seq: audit.last_seq,
        head_hash: audit.head_hash,
        complete: audit.complete,
        ...(audit.reason ? { reason: audit.reason } : {}),
      };
    },
  },
  screens: {
    action: 'screens.export',
    file: 'screens',
    what: 'Exporting screens',
    chunks: screensExportChunks as ExportKind['chunks'],
    recorded: (end) => {
      const screens = end as ScreensExportEnd;
      return {
        count: screens.count,
        sha256: screens.sha256,
        complete: screens.complete,
        ...(screens.reason ? { reason: screens.reason } : {}),
      };
    },
  },
} satisfies Record<string, ExportKind>;

/** Starts an export of the caller's tenant: 403 for an analyst, 400 for a bad period or format. */
export async function startExport(
  table: Table,
  principal: Principal,
  kind: keyof typeof KINDS,
  input: ExportInput,
): Promise<ExportStream> {
  const spec: ExportKind = KINDS[kind];
  requireRole(principal, 'admin', spec.what);
  const asked = exportPeriod(input.query);
  const format = exportFormat(input.query.format, input.accept);
  const actor = { user_id: principal.userId, role: principal.role };
  const started = await appendAuditEntry(table, principal.tenantId, {
    action: spec.action,
    outcome: 'started',
    actor,
    // `to` null: until now (the period then ends just after this entry).
    details: { from: asked.from, to: input.query.to ? asked.to : null, format },
  });
  // An audit export shows who took it: its own entry is on the chain before the export reads it
  // (the chain writer links it within seconds; past 10 s the export goes on without it).
  if (kind === 'audit') await untilChained(table, started, 10_000);
  // Without a `to`, the period runs until now: after the started entry, which is then part of it
  // (an audit export shows who took it).
  const period = input.query.to
    ? asked
    : { from: asked.from, to: new Date(Math.max(Date.now(), Date.parse(started.at) + 1)).toISOString() };
  const summary: { end?: EndRecord } = {};
  const outcome = async (failure: string | undefined) => {
    try {
      await appendAuditEntry(table, principal.tenantId, {
        action: spec.action,
        outcome: failure ? 'failed' : 'done',
        actor,
        started_entry_id: started.entry_id,
        ...(failure ? { outcome_detail: failure } : {}),
        details: { to: period.to, ...(summary.end ? spec.recorded(summary.end) : {}) },
      });
    } catch (error) {
      logger.error(
        { err: error, tenant: principal.tenantId, startedEntry: started.entry_id },
        'audit outcome not recorded',
      );
    }
  };
  async function* recorded(): AsyncGenerator<string> {
    let failure: string | undefined = 'the export stopped before its last record: the client went away';
    try {
      yield* spec.chunks(table, principal.tenantId, period, {
        format,
        remainingMs: input.remainingMs,
        anchors: input.anchors,
        summary,
        // Before every page: a page is up to 1 MB read, a key check one GetItem.
        accessEnded: keyWatch(table, input.apiKey, 0),
      });
      failure = undefined;
    } catch (error) {
      failure = 'internal error';
      logger.error({ err: error, tenant: principal.tenantId }, 'export failed part way');
      // The status line is long sent: the file says it is cut short, and has no export_end.
      const record = {
        type: 'export_error',
        detail: 'The export failed part way: this file is incomplete. Export again.',
      };
      yield exportRecord(format, record);
    } finally {
      await outcome(failure);
    }
  }
  return {
    headers: {
      'content-type': EXPORT_CONTENT_TYPES[format],
      'content-disposition': `attachment; filename="${exportFileName(spec.file, principal.tenantId, period, format)}"`,
      'cache-control': 'no-store',
    },
    text: recorded(),
  };
}
