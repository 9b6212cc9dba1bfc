/**
 * The retry schedule of a delivery (docs/webhooks.md, "Retries"): the waits after each failed
 * attempt, exponential up to SQS's 12-hour visibility limit. Nine attempts, the last 31.6 hours
 * after the first (113,765 s), past the day a receiver's outage over a weekend night may last;
 * then the dead-letter queue and the endpoint is marked failing.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 60, 300, 1800, 7200, 18_000, 43_200, 43_200];

/** Attempts of one delivery: the first and one per wait; the delivery queue's maxReceiveCount. */
export const attemptsOf = (delays: readonly number[]) => delays.length + 1;

/** An endpoint failing this long (every delivery dead-lettered since) is disabled. */
export const DISABLE_AFTER_FAILING_MS = 72 * 3_600_000;

/** The retry schedule named by WEBHOOK_RETRY_DELAYS_SECONDS (tests and demos), else the deployed one. */
export function retryDelays(configured: string | undefined): readonly number[] {
  if (configured === undefined || configured.trim() === '') return RETRY_DELAYS_SECONDS;
  return configured.split(',').map((part) => {
    const seconds = Number(part.trim());
    if (!Number.isFinite(seconds) || seconds < 0 || seconds > 43_200)
      throw new Error('WEBHOOK_RETRY_DELAYS_SECONDS: seconds from 0 to 43200, comma-separated');
    return seconds;
  });
}
