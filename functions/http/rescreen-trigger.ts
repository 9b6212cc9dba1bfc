import { startRescreenRun } from '../../lib/monitoring/rescreen-run.ts';
import { publishedSnapshotVersion } from '../../lib/monitoring/run-lists.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('rescreen-trigger', async ({ services, principal, log }) => ({
  status: 202,
  body: await startRescreenRun(
    services,
    {
      tenantId: principal.tenantId,
      plan: principal.plan,
      trigger: 'manual',
      startedBy: { user_id: principal.userId, role: principal.role },
      now: new Date(),
      snapshotVersion: await publishedSnapshotVersion(services.config),
    },
    log,
  ),
}));
