import { describe, expect, it } from 'vitest';
import {
  type ChainedEntry,
  ChainVerifier,
  canonicalJson,
  entryHash,
  GENESIS_HASH,
  sealEntry,
  sha256Hex,
  verifyChain,
} from '../../lib/audit/chain.ts';

/** A chain of `n` sealed entries, as the trail writes them. */
function chainOf(n: number): ChainedEntry[] {
  const entries: ChainedEntry[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq += 1) {
    const entry = sealEntry(
      { seq, action: 'screen.dispose', details: { disposition: 'cleared', n: seq } },
      prev,
    );
    entries.push(entry);
    prev = entry.hash;
  }
  return entries;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out whitespace and undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: true, y: null }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[2,{"y":null,"z":true}]},"b":1}',
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });
});

describe('entryHash', () => {
  it('is SHA-256 of prev_hash, a line feed and the canonical entry without its hash', () => {
    const entry = sealEntry({ seq: 1, at: '2025-01-01T00:00:00.000Z' }, GENESIS_HASH);

    expect(entry.prev_hash).toBe(GENESIS_HASH);
    expect(entry.hash).toBe(
      sha256Hex(`${GENESIS_HASH}\n{"at":"2025-01-01T00:00:00.000Z","prev_hash":"${GENESIS_HASH}","seq":1}`),
    );
    expect(entryHash(entry)).toBe(entry.hash);
  });
});

describe('verifyChain', () => {
  it('accepts an intact chain with its count and head hash', () => {
    const entries = chainOf(5);

    expect(verifyChain(entries)).toEqual({ ok: true, count: 5, head_hash: entries[4].hash, head_seq: 5 });
    expect(verifyChain([])).toEqual({ ok: true, count: 0, head_hash: GENESIS_HASH, head_seq: 0 });
  });

  it('names an edited entry', () => {
    const entries = chainOf(5);
    entries[2] = { ...entries[2], details: { disposition: 'confirmed_hit', n: 3 } };

    expect(verifyChain(entries)).toMatchObject({ ok: false, seq: 3, problem: 'edited', verified: 2 });
  });

  it('names an added field as an edit', () => {
    const entries = chainOf(3);
    entries[1] = { ...entries[1], extra: 'x' };

    expect(verifyChain(entries)).toMatchObject({ ok: false, seq: 2, problem: 'edited' });
  });

  it('names a removed entry', () => {
    const entries = chainOf(5);
    entries.splice(3, 1);

    expect(verifyChain(entries)).toMatchObject({ ok: false, seq: 4, problem: 'missing' });
  });

  it('names the first of two swapped entries as out of order', () => {
    const entries = chainOf(6);
    [entries[1], entries[4]] = [entries[4], entries[1]];

    expect(verifyChain(entries)).toMatchObject({ ok: false, seq: 2, problem: 'out-of-order' });
  });

  it('names a moved entry whose hashes were recomputed to fit its new place', () => {
    const entries = chainOf(4);
    // Entry 3's content re-sealed as seq 3 but still naming entry 1 as its predecessor.
    entries[2] = sealEntry({ ...entries[2], details: { disposition: 'cleared', n: 99 } }, entries[0].hash);

    expect(verifyChain(entries)).toMatchObject({ ok: false, seq: 3, problem: 'relinked' });
  });

  it('names an inserted copy', () => {
    const entries = chainOf(4);
    entries.splice(2, 0, entries[1]);

    expect(verifyChain(entries)).toMatchObject({ ok: false, seq: 3, problem: 'unexpected' });
  });

  it('verifies a stretch from a given start, one entry at a time', () => {
    const entries = chainOf(6);
    const verifier = new ChainVerifier({ seq: 3, prev_hash: entries[1].hash });
    for (const entry of entries.slice(2)) verifier.push(entry);

    expect(verifier.finish()).toEqual({ ok: true, count: 4, head_hash: entries[5].hash, head_seq: 6 });
    expect(verifyChain(entries.slice(2), { seq: 3, prev_hash: GENESIS_HASH })).toMatchObject({
      ok: false,
      seq: 3,
      problem: 'relinked',
    });
  });

  it('reports a malformed entry instead of throwing', () => {
    expect(verifyChain([null, { seq: '1' }])).toMatchObject({ ok: false, seq: 1, problem: 'malformed' });
  });
});
