import { describe, expect, it } from 'vitest';
import { isoDay, isoSeconds, isoWithOffset } from '../../lib/common/time.ts';

describe('time formats', () => {
  it('prints screen times with Z and no fraction', () => {
    expect(isoSeconds(new Date('2025-03-14T09:26:53.589Z'))).toBe('2025-03-14T09:26:53Z');
  });

  it('prints the health timestamp with an explicit +00:00 offset, and the UTC day', () => {
    const at = new Date('2025-03-14T23:59:59.120Z');
    expect(isoWithOffset(at)).toBe('2025-03-14T23:59:59.120+00:00');
    expect(isoDay(at)).toBe('2025-03-14');
  });
});
