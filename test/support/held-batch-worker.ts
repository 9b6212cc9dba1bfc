import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';

/** A name this worker does not finish for minutes, so the stream of its batch stays open. */
export const HELD = 'Held Subject';

/**
 * The deployed batch worker with one dependency swapped: screening HELD fails and is retried only
 * after five minutes, so a batch holding it stays unfinished (its stream open, sending heartbeats)
 * for as long as a test needs. Every other subject is screened as usual.
 */
export const handler = createQueueWorker({
  services: getServices,
  screen: async (services, principal, input, options) => {
    if (input.name === HELD) throw new Error('held by the test');
    return screenSubject(services, principal, input, options);
  },
  retryDelaySeconds: () => 300,
});
