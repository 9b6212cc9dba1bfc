import { startExport } from '../../lib/export/export.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** GET /screens/export: the screens of a period with their decisions and receipts, streamed (admins). */
export const handler = streamHandler(
  'screens-export',
  ({ services, principal, query, event, apiKey }, context) =>
    startExport(services.table, principal, 'screens', {
      query,
      accept: event.headers?.accept,
      remainingMs: () => context.getRemainingTimeInMillis(),
      apiKey,
    }),
);
