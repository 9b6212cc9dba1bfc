import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  attachedCompiledIndex,
  type CompiledIndexData,
  currentFingerprint,
  isCurrent,
} from '../../lib/matcher/compiled-index.ts';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot, readSnapshot, writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { SubjectInput } from '../../lib/matcher/types.ts';
import { SNAPSHOT_FORMAT_VERSION } from '../../lib/watchlists/snapshot.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { PEOPLE, snapshot } from './fixtures.ts';

const workDir = mkdtempSync(join(tmpdir(), 'compiled-index-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const QUERIES: SubjectInput[] = [
  ...PEOPLE.flatMap((p) => p.names.map((n) => ({ name: n.name }))),
  { name: 'Vladimir Putin', dob: '1952-10-07' },
  { name: 'Владимир Путин' },
  { name: 'Ramimakhlouf' },
  { name: 'Jane Smith', alias: 'J. Smith' },
];

function screenAll(matcher: ReturnType<typeof createMatcher>): string[] {
  return QUERIES.map((q) => JSON.stringify(matcher.screen(q, CHECK_TYPES)));
}

/** Writes the fixture snapshot, then lets `edit` change the stored index in the file. */
function storedSnapshot(name: string, edit?: (index: CompiledIndexData) => void): string {
  const path = join(workDir, name);
  writeSnapshot({ ...snapshot(), format_version: SNAPSHOT_FORMAT_VERSION }, path);
  if (edit) {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { index: CompiledIndexData };
    edit(file.index);
    writeFileSync(path, JSON.stringify(file));
  }
  return path;
}

describe('compiled name index in the snapshot file', () => {
  const fresh = screenAll(createMatcher(snapshot()));

  it('screens exactly as an index compiled from the names', () => {
    const loaded = readSnapshot(storedSnapshot('current.json'));
    const stored = attachedCompiledIndex(loaded);
    expect(stored && isCurrent(stored, loaded.people)).toBe(true);
    expect(screenAll(createMatcher(loaded))).toEqual(fresh);
  });

  it('is ignored when compiled by other normalisation code, so stale tokens never serve', () => {
    // As if the normaliser had changed since: every stored token is wrong.
    const path = storedSnapshot('stale.json', (index) => {
      index.fingerprint.sources = 'other code';
      index.vocab = index.vocab.map(() => 'zzzz');
    });
    const loaded = readSnapshot(path);
    const stored = attachedCompiledIndex(loaded);
    expect(stored && isCurrent(stored, loaded.people)).toBe(false);
    expect(screenAll(createMatcher(loaded))).toEqual(fresh);
  });

  it('is ignored when the normaliser gives other tokens on the probe names', () => {
    const path = storedSnapshot('probe.json', (index) => {
      index.fingerprint.probe = 'other output';
    });
    const loaded = readSnapshot(path);
    const stored = attachedCompiledIndex(loaded);
    expect(stored && isCurrent(stored, loaded.people)).toBe(false);
  });

  it('is recompiled and rewritten by loadSnapshot when stale', () => {
    const path = storedSnapshot('rewritten.json', (index) => {
      index.fingerprint.sources = 'other code';
    });
    const loaded = loadSnapshot(path);
    expect(screenAll(createMatcher(loaded))).toEqual(fresh);
    const file = JSON.parse(readFileSync(path, 'utf8')) as { index: CompiledIndexData };
    expect(file.index.fingerprint).toEqual(currentFingerprint());
  });

  it('keeps the snapshot file ASCII, with names intact', () => {
    const path = storedSnapshot('ascii.json');
    expect(readFileSync(path).every((byte) => byte < 0x80)).toBe(true);
    const names = readSnapshot(path).people.flatMap((p) => p.names.map((n) => n.name));
    expect(names).toEqual(snapshot().people.flatMap((p) => p.names.map((n) => n.name)));
  });
});
