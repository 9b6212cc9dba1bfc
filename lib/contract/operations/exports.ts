import { ExportQuerySchema } from '../../common/export-query.ts';
import {
  AuditEntrySchema,
  AuditExportEndSchema,
  ExportErrorSchema,
  ScreenExportRecordSchema,
  ScreensExportEndSchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { exportErrors, type Operation } from './shared.ts';

/** The contract of the exports (lib/contract/operations.ts): files streamed, not JSON bodies. */
export const exportsOperations = {
  'audit-export': {
    query: ExportQuerySchema,
    success: {
      status: 200,
      description:
        'The period’s run of the audit chain, streamed: NDJSON (one entry per line, exactly as stored) or CSV (one row per entry), then the `export_end` record with the count, the first and last seq, the hash before the first, the head hash and the chain head. `npm run verify-export -- <file>` checks it.',
      exportRecords: {
        entry: AuditEntrySchema,
        export_end: AuditExportEndSchema,
        export_error: ExportErrorSchema,
      },
    },
    errors: exportErrors,
  },
  'screens-export': {
    query: ExportQuerySchema,
    success: {
      status: 200,
      description:
        'The screens of the period (screened_at) with their decisions, history and receipts, streamed: NDJSON or CSV, then the `export_end` record with the count and the SHA-256 of the records. Holds personal data (subjects): admins only.',
      exportRecords: {
        screen: ScreenExportRecordSchema,
        export_end: ScreensExportEndSchema,
        export_error: ExportErrorSchema,
      },
    },
    errors: exportErrors,
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
