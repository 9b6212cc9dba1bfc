import { triggerRescreenRun } from '../../lib/monitoring/rescreen-run.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('rescreen-trigger', async ({ services, principal, log }) => ({
  status: 202,
  body: await triggerRescreenRun(services, principal, log),
}));
