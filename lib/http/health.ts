import { INTERFACE_VERSION } from '../common/version.ts';

/** ISO 8601 with an explicit `+00:00` offset, the form /health reports (docs/api-decisions.md#timestamps). */
export function isoWithOffset(at: Date): string {
  return at.toISOString().replace('Z', '+00:00');
}

export function healthStatus(at: Date = new Date()) {
  return { status: 'ok' as const, version: INTERFACE_VERSION, timestamp: isoWithOffset(at) };
}
