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
import { peopleSource } from '../../lib/matcher/snapshot-people.ts';
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

/** The snapshot file's first line (everything but the people's lines, which follow it). */
function headerOf(text: string): { index: CompiledIndexData } {
  return JSON.parse(text.slice(0, text.indexOf('\n'))) as { index: CompiledIndexData };
}

/** Writes the fixture snapshot, then lets `edit` change the stored index in the file. */
function storedSnapshot(name: string, edit?: (index: CompiledIndexData) => void): string {
  const path = join(workDir, name);
  writeSnapshot({ ...snapshot(), format_version: SNAPSHOT_FORMAT_VERSION }, path);
  if (edit) {
    const text = readFileSync(path, 'latin1');
    const header = headerOf(text);
    edit(header.index);
    const ascii = JSON.stringify(header).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    writeFileSync(path, ascii + text.slice(text.indexOf('\n')), 'latin1');
  }
  return path;
}

describe('compiled name index in the snapshot file', () => {
  const fresh = screenAll(createMatcher(snapshot()));

  it('screens exactly as an index compiled from the names', () => {
    const loaded = readSnapshot(storedSnapshot('current.json'));
    const stored = attachedCompiledIndex(loaded);
    expect(stored && isCurrent(stored, peopleSource(loaded))).toBe(true);
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
    expect(stored && isCurrent(stored, peopleSource(loaded))).toBe(false);
    expect(screenAll(createMatcher(loaded))).toEqual(fresh);
  });

  it('is ignored when the normaliser gives other tokens on the probe names', () => {
    const path = storedSnapshot('probe.json', (index) => {
      index.fingerprint.probe = 'other output';
    });
    const loaded = readSnapshot(path);
    const stored = attachedCompiledIndex(loaded);
    expect(stored && isCurrent(stored, peopleSource(loaded))).toBe(false);
  });

  it('is recompiled and rewritten by loadSnapshot when stale', () => {
    const path = storedSnapshot('rewritten.json', (index) => {
      index.fingerprint.sources = 'other code';
    });
    const loaded = loadSnapshot(path);
    expect(screenAll(createMatcher(loaded))).toEqual(fresh);
    expect(headerOf(readFileSync(path, 'latin1')).index.fingerprint).toEqual(currentFingerprint());
  });

  it("keeps the snapshot file's text ASCII, with names intact", () => {
    const path = storedSnapshot('ascii.json');
    const file = readFileSync(path);
    const headerEnd = file.indexOf(10);
    const header = JSON.parse(file.toString('latin1', 0, headerEnd));
    // The header line and the people's lines; between them the arrays' raw bytes.
    const text = [file.subarray(0, headerEnd), file.subarray(headerEnd + 1 + header.array_bytes)];
    expect(text.every((part) => part.every((byte) => byte < 0x80))).toBe(true);
    const names = readSnapshot(path).people.flatMap((p) => p.names.map((n) => n.name));
    expect(names).toEqual(snapshot().people.flatMap((p) => p.names.map((n) => n.name)));
  });
});
