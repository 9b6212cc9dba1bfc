import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';

/** A name this worker's screening dependency always fails on, like a matcher that keeps crashing. */
export const UNSCREENABLE = 'Unscreenable Subject';

/**
 * The deployed batch worker with one dependency swapped: screening throws for UNSCREENABLE, so a
 * test can watch a subject exhaust its retries and reach the dead-letter queue. No retry delay.
 */
export const handler = createQueueWorker({
  services: getServices,
  screen: async (services, principal, input, options) => {
    if (input.name === UNSCREENABLE) throw new Error('watchlist index unavailable');
    return screenSubject(services, principal, input, options);
  },
  retryDelaySeconds: () => 0,
});
