import { ServiceStartingError } from '../common/errors.ts';
import { STARTING_RETRY_AFTER_SECONDS, startingState } from '../common/readiness.ts';
import { isoWithOffset } from '../common/time.ts';
import { INTERFACE_VERSION } from '../common/version.ts';

/**
 * The contract's `ok` body once the process can screen; while it is still loading the watchlists
 * (lib/common/readiness.ts), a 503 with Retry-After whose body says `starting` and what is loading.
 */
export function healthStatus(at: Date = new Date()) {
  const starting = startingState();
  if (starting)
    throw new ServiceStartingError(
      `The service is starting: ${starting.loading} (for ${starting.seconds} s); screens wait for it or are answered 503.`,
      STARTING_RETRY_AFTER_SECONDS,
      {
        status: 'starting',
        version: INTERFACE_VERSION,
        timestamp: isoWithOffset(at),
        loading: starting.loading,
        starting_for_seconds: starting.seconds,
      },
    );
  return { status: 'ok' as const, version: INTERFACE_VERSION, timestamp: isoWithOffset(at) };
}
