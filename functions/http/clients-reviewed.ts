import { httpHandler } from '../../lib/http/handler.ts';
import { listScreenedSubjects } from '../../lib/monitoring/screened-subjects.ts';
import { ListQuerySchema } from '../../lib/screening/request.ts';

export const handler = httpHandler(
  'clients-reviewed',
  { query: ListQuerySchema },
  async ({ services, principal, query }) => ({
    body: await listScreenedSubjects(
      services.table,
      principal.tenantId,
      'reviewed',
      query.limit,
      query.cursor,
    ),
  }),
);
