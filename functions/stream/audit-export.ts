import { anchorStoreOf } from '../../lib/audit/anchor-store.ts';
import { startExport } from '../../lib/export/export.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** GET /audit/export: a period of the tenant's audit trail, streamed (admins), ending with its anchor. */
export const handler = streamHandler('audit-export', (request, context) =>
  startExport(request.services.table, request.principal, 'audit', {
    query: request.query,
    accept: request.event.headers?.accept,
    remainingMs: () => context.getRemainingTimeInMillis(),
    apiKey: request.apiKey,
    anchors: anchorStoreOf(request.services.config),
  }),
);
