import { setTimeout as sleep } from 'node:timers/promises';
import { handler as autoRescreen } from '../../functions/schedule/auto-rescreen.ts';
import { scheduledEvent } from '../../infra/local/scheduler.ts';
import type { ApiResponse } from './api-client.ts';

const DAY = 86_400_000;

/** The GET half of the black-box API client (test/support/api-client.ts). */
interface Reader {
  get: (path: string, key?: string) => Promise<ApiResponse>;
}

/**
 * The hourly auto-rescreen rule fired with its clock moved ahead, and the run it started for the
 * tenant whose `key` is given, once finished (GET /clients/rescreen/runs/{run_id}). Each call is
 * two days further ahead than the last of the process, so clients re-screened every day are due
 * again every time.
 */
let daysAhead = 0;
export async function scheduledRescreenRun(api: Reader, key: string): Promise<ApiResponse['body']> {
  daysAhead += 2;
  const { runs } = await autoRescreen(
    scheduledEvent({ id: 'auto-rescreen' }, new Date(Date.now() + daysAhead * DAY)),
  );
  for (const { run_id } of runs) {
    // Another tenant's run is 404 to this key.
    if ((await api.get(`/clients/rescreen/runs/${run_id}`, key)).status !== 200) continue;
    for (let i = 0; i < 200; i += 1) {
      const run = (await api.get(`/clients/rescreen/runs/${run_id}`, key)).body;
      if (run.status === 'finished') return run;
      await sleep(50);
    }
    throw new Error(`run ${run_id} did not finish`);
  }
  throw new Error('no rescreen run for the tenant of this key');
}
