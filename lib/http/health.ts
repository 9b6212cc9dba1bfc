import { isoWithOffset } from '../common/time.ts';
import { INTERFACE_VERSION } from '../common/version.ts';

export function healthStatus(at: Date = new Date()) {
  return { status: 'ok' as const, version: INTERFACE_VERSION, timestamp: isoWithOffset(at) };
}
