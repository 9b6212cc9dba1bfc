import { anchorStoreOf } from '../../lib/audit/anchor-store.ts';
import { startExport } from '../../lib/export/export.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** GET /audit/export: a period of the tenant's audit trail, streamed (admins). */
export const handler = streamHandler(
  'audit-export',
  ({ services, principal, query, event, apiKey }, context) =>
    startExport(services.table, principal, 'audit', {
      query,
      accept: event.headers?.accept,
      remainingMs: () => context.getRemainingTimeInMillis(),
      apiKey,
      anchors: anchorStoreOf(services.config),
    }),
);
