import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ScheduledEvent } from 'aws-lambda';
import { defaultRegion, namedSetting } from '../../lib/common/config.ts';
import { logger } from '../../lib/common/log.ts';
import { isoSeconds } from '../../lib/common/time.ts';
import { type ScheduledJobDefinition, scheduledJobs } from '../../lib/contract/routes.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

type ScheduledLambda = (event: ScheduledEvent) => Promise<unknown>;

/** The payload EventBridge gives a function a scheduled rule targets. */
export function scheduledEvent(job: Pick<ScheduledJobDefinition, 'id'>, time: Date): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: 'local',
    time: isoSeconds(time),
    region: defaultRegion(),
    resources: [`arn:aws:events:local:local:rule/${job.id}`],
    detail: {},
  };
}

export interface LocalScheduler {
  /** Runs every job once now, as its rule would (tests and demos). */
  tick(time?: Date): Promise<void>;
  close(): void;
}

/**
 * The local stand-in for the EventBridge rules of the manifest's scheduled jobs: a timer per job
 * calling its deployed handler with a Scheduled Event. The period is the job's own unless its
 * `localPeriodVariable` sets one in seconds (0 turns the timer off). A tick still running when
 * the next falls due is not started twice.
 */
export async function startLocalScheduler(
  jobs: readonly ScheduledJobDefinition[] = scheduledJobs,
): Promise<LocalScheduler> {
  const loaded = await Promise.all(
    jobs.map(async (job) => {
      const module = (await import(pathToFileURL(resolve(repoRoot, job.entry)).href)) as {
        handler: ScheduledLambda;
      };
      return { job, handler: module.handler, running: undefined as Promise<void> | undefined };
    }),
  );
  const run = (entry: (typeof loaded)[number], time: Date) => {
    entry.running ??= entry
      .handler(scheduledEvent(entry.job, time))
      .then(() => undefined)
      .catch((error) => logger.error({ err: error, job: entry.job.id }, 'scheduled job failed'))
      .finally(() => {
        entry.running = undefined;
      });
    return entry.running;
  };
  const timers = loaded.flatMap((entry) => {
    const configured = namedSetting(entry.job.localPeriodVariable);
    const seconds =
      configured === undefined || configured === '' ? entry.job.everyMinutes * 60 : Number(configured);
    if (!Number.isFinite(seconds) || seconds <= 0) return [];
    const timer = setInterval(() => void run(entry, new Date()), seconds * 1000);
    timer.unref();
    return [timer];
  });
  return {
    tick: async (time = new Date()) => {
      await Promise.all(loaded.map((entry) => run(entry, time)));
    },
    close: () => {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
