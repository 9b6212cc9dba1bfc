import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSnapshot, readSnapshot, writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { perListPeople } from '../../lib/watchlists/linking.ts';
import {
  buildSnapshot,
  defaultDataDir,
  REMARKS_MAX_CHARS,
  SNAPSHOT_FORMAT_VERSION,
} from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';

const workDir = mkdtempSync(join(tmpdir(), 'watchlist-snapshot-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// The per-list parsers are tested on the full files in their own test files; the snapshot is
// exercised on the lists that parse fastest, to keep the suite quick.
const small = LIST_SOURCES.filter((s) =>
  ['un_sc', 'us_executive_pep', 'interpol_red'].includes(s.descriptor.id),
);
const built = buildSnapshot(defaultDataDir(), { now: new Date('2026-07-01T10:00:00.123Z'), sources: small });

describe('shipped lists', () => {
  it('has every file each list names under data/', () => {
    for (const { descriptor } of LIST_SOURCES) {
      for (const file of descriptor.files) {
        const path = join(defaultDataDir(), file);
        if (file.endsWith('*.json')) expect(readdirSync(dirname(path)).length).toBeGreaterThan(0);
        else expect(existsSync(path), file).toBe(true);
      }
    }
  });

  it('uses each list id once and ships every check type', () => {
    const ids = LIST_SOURCES.map((s) => s.descriptor.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(LIST_SOURCES.map((s) => s.descriptor.category))).toEqual(
      new Set(['sanctions', 'pep', 'criminal']),
    );
  });

  it('carries the caveats a compliance reader needs', () => {
    const descriptor = (id: string) => LIST_SOURCES.find((s) => s.descriptor.id === id)?.descriptor;
    expect(descriptor('un_sc')?.notes?.join(' ')).toMatch(/legal review/i);
    expect(descriptor('interpol_red')?.notes?.join(' ')).toMatch(/legal review/i);
    expect(descriptor('us_congress_pep')?.notes?.join(' ')).toMatch(/tier 1 = in office/);
    expect(descriptor('uk_ofsi')?.attribution).toMatch(/Open Government Licence v3\.0/);
  });
});

describe('buildSnapshot', () => {
  it('summarises each list with its own date and counts', () => {
    expect(built.lists.map((l) => [l.id, l.source_date, l.entity_count, l.individual_count])).toEqual([
      ['un_sc', '2026-02-27', 1003, 730],
      ['us_executive_pep', '2026-06-15', 80, 12],
      ['interpol_red', '2020-12-10', 6010, 6009],
    ]);
    // The UN lists Hassan Dahir Aweys twice (Somalia and Al-Qaida regimes): one person, two listings.
    expect(built.people).toHaveLength(730 + 12 + 6009 - 1);
    const linked = built.people.filter((p) => p.listings);
    expect(linked.map((p) => p.listings?.map((l) => l.reference))).toEqual([['QDi.042', 'SOi.002']]);
    expect(perListPeople(built)).toHaveLength(730 + 12 + 6009);
    expect(built.built_at).toBe('2026-07-01T10:00:00Z');
    expect(built.lists.every((l) => l.synced_at === built.built_at)).toBe(true);
  });

  it('gives every person a name and an id unique within its list', () => {
    const keys = new Set(built.people.map((p) => `${p.list_id}:${p.entity_id}`));
    expect(keys.size).toBe(built.people.length);
    expect(built.people.every((p) => p.primary_name !== '' && p.names[0]?.strength === 'primary')).toBe(true);
  });
});

describe('snapshot file', () => {
  it('round-trips through the compact file, restoring omitted empty arrays', () => {
    const path = join(workDir, 'small.json');
    writeSnapshot(built, path);
    expect(readFileSync(path, 'utf8')).not.toContain('"locations":[]');
    const loaded = readSnapshot(path);
    const expected = JSON.parse(JSON.stringify(built)) as typeof built;
    for (const person of expected.people) {
      if (person.remarks && person.remarks.length > REMARKS_MAX_CHARS) {
        person.remarks = `${person.remarks.slice(0, REMARKS_MAX_CHARS - 1).trimEnd()}…`;
      }
    }
    expect(isDeepStrictEqual(loaded, expected)).toBe(true);
    expect(loaded.people.every((p) => (p.remarks?.length ?? 0) <= REMARKS_MAX_CHARS)).toBe(true);
    expect(loaded.people.every((p) => Array.isArray(p.locations) && Array.isArray(p.dobs))).toBe(true);
  });

  it('is built and written on first load when missing', () => {
    const path = join(workDir, 'nested', 'watchlists.json');
    const loaded = loadSnapshot(path, { sources: small });
    expect(existsSync(path)).toBe(true);
    expect(loaded.lists.map((l) => l.id)).toEqual(['un_sc', 'us_executive_pep', 'interpol_red']);
    expect(loadSnapshot(path, { sources: small }).built_at).toBe(loaded.built_at);
  });

  it('is rebuilt when written in another format version', () => {
    const path = join(workDir, 'old.json');
    writeFileSync(
      path,
      JSON.stringify({ format_version: SNAPSHOT_FORMAT_VERSION - 1, lists: [], people: [] }),
    );
    const loaded = loadSnapshot(path, { sources: small });
    expect(loaded.format_version).toBe(SNAPSHOT_FORMAT_VERSION);
    expect(loaded.people.length).toBeGreaterThan(700);
    expect(readSnapshot(path).format_version).toBe(SNAPSHOT_FORMAT_VERSION);
  });
});
