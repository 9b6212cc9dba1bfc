/**
 * The service's time formats, written once (docs/api-decisions.md#timestamps): every stored and
 * returned timestamp is UTC.
 */

/** Milliseconds in a day and in an hour, for windows and retention periods counted in days or hours. */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** `YYYY-MM-DDThh:mm:ssZ` (`Z` and no fraction): the form of every timestamp the API stores and returns. */
export function isoSeconds(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** ISO 8601 with an explicit `+00:00` offset, the form /health reports. */
export function isoWithOffset(at: Date): string {
  return at.toISOString().replace('Z', '+00:00');
}

/** The UTC day, `YYYY-MM-DD`. */
export function isoDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
