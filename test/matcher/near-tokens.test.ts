import { describe, expect, it } from 'vitest';
import { attachedCompiledIndex, deserialiseCompiledIndex } from '../../lib/matcher/compiled-index.ts';
import { buildIndex } from '../../lib/matcher/name-index.ts';
import { nearTokensHold } from '../../lib/matcher/near-tokens.ts';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { parseSnapshot, serialiseSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { WatchlistSnapshot } from '../../lib/watchlists/types.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { PEOPLE, snapshot } from './fixtures.ts';

/** Every listed name, each with a letter dropped, each reversed, and a few names on no list. */
const SUBJECTS = [
  ...PEOPLE.flatMap((p) =>
    p.names.flatMap((n) => [
      { name: n.name },
      { name: n.name.slice(0, 2) + n.name.slice(3) },
      { name: n.name.split(/\s+/).reverse().join(' ') },
    ]),
  ),
  { name: 'Maria Garcia' },
  { name: 'Mohammed Ali Hassan' },
  { name: 'Ramimakhlouf' },
];

const screenAll = (s: WatchlistSnapshot): string[] => {
  const matcher = createMatcher(s);
  return SUBJECTS.map((q) => JSON.stringify(matcher.screen(q, CHECK_TYPES)));
};

describe("listed tokens' evidence stored with the snapshot (near-tokens.ts)", () => {
  it('is written with the file, and screens give what the lookup per query gives', () => {
    const loaded = parseSnapshot(serialiseSnapshot(snapshot()));
    const index = buildIndex(loaded);
    expect(index.near).toBeDefined();
    expect(index.near?.ids.length).toBeGreaterThan(0);
    expect(nearTokensHold(index, index.near as NonNullable<typeof index.near>)).toBe(true);
    // A snapshot built in memory has no stored near tokens: each query's are looked up.
    expect(buildIndex(snapshot()).near).toBeUndefined();
    expect(screenAll(loaded)).toEqual(screenAll(snapshot()));
  });

  it('is not read when it disagrees with the code running now', () => {
    const loaded = parseSnapshot(serialiseSnapshot(snapshot()));
    const data = attachedCompiledIndex(loaded);
    const near = data && deserialiseCompiledIndex(data).near;
    if (!near) throw new Error('no near tokens stored');
    const index = buildIndex(loaded);
    // Another similarity for a sampled token (vocabulary id 0 is in every sample).
    const sims = new Float64Array(near.sims);
    sims[near.start[0]] -= 0.01;
    expect(nearTokensHold(index, { ...near, sims })).toBe(false);
    // Another vocabulary: not this index's.
    expect(nearTokensHold(index, { ...near, start: near.start.subarray(1) })).toBe(false);
    // A file whose stored evidence is off (here: no listed token near any other, itself included)
    // is screened as one without it.
    const tampered = parseSnapshot(serialiseSnapshot(snapshot()));
    const stored = attachedCompiledIndex(tampered)?.near;
    if (!stored || typeof stored.start === 'string') throw new Error('no near tokens stored');
    const starts = new Int32Array(stored.start.buffer, stored.start.byteOffset, stored.start.byteLength / 4);
    starts.fill(0, 0, starts.length - 1);
    expect(screenAll(tampered)).toEqual(screenAll(snapshot()));
  });
});
