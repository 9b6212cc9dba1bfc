import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../lib/common/errors.ts';
import { decodeCursor, encodeCursor } from '../../lib/store/cursor.ts';

describe('list cursors', () => {
  it('round-trip for the tenant and list that issued them', () => {
    const cursor = encodeCursor('screens', 'tacme', 'SCR-20250101-000042');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'screens', 'tacme')).toBe('SCR-20250101-000042');
  });

  it('are refused for another tenant, another list, or when altered', () => {
    const cursor = encodeCursor('screens', 'tacme', 'SCR-20250101-000042');
    const forged = Buffer.from(JSON.stringify({ l: 'screens', t: 'tacme', id: 'USER#u1' })).toString(
      'base64url',
    );
    for (const [text, list, tenant] of [
      [cursor, 'screens', 'tother'],
      [cursor, 'pending', 'tacme'],
      [`${cursor.slice(0, -3)}xyz`, 'screens', 'tacme'],
      ['not a cursor!', 'screens', 'tacme'],
      [forged, 'screens', 'tacme'],
    ] as const) {
      expect(() => decodeCursor(text, list, tenant)).toThrow(InvalidRequestError);
    }
  });
});
