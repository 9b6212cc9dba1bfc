import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffList, personHash } from '../../lib/sync/diff.ts';
import { defaultDataDir, REMARKS_MAX_CHARS } from '../../lib/watchlists/snapshot.ts';
import { parseUsExecutivePep } from '../../lib/watchlists/us-congress-pep.ts';

const yaml = readFileSync(join(defaultDataDir(), 'pep/us_congress_legislators/executive.yaml'));
const june = parseUsExecutivePep(yaml, { referenceDate: '2026-06-15' }).people;

describe('diffList', () => {
  it('finds nothing in the same data judged on another day, when no tier moved', () => {
    const nextDay = parseUsExecutivePep(yaml, { referenceDate: '2026-06-16' }).people;
    expect(diffList('us_executive_pep', june, nextDay)).toMatchObject({
      added: [],
      changed: [],
      removed: [],
    });
  });

  it('reports a PEP whose tier moved as changed', () => {
    // Ten years on, every former office holder has left office more than five years before.
    const later = parseUsExecutivePep(yaml, { referenceDate: '2036-06-15' }).people;
    const moved = later.filter(
      (p) => june.find((q) => q.entity_id === p.entity_id)?.pep?.tier !== p.pep?.tier,
    );
    const diff = diffList('us_executive_pep', june, later);
    expect(moved.length).toBeGreaterThan(0);
    expect(diff.changed.map((p) => p.entity_id).sort()).toEqual(moved.map((p) => p.entity_id).sort());
  });

  it('reports added and removed entries by entry id', () => {
    const diff = diffList('us_executive_pep', june.slice(1), june.slice(0, -1));
    expect(diff.added.map((p) => p.entity_id)).toEqual([june[0].entity_id]);
    expect(diff.removed).toEqual([june.at(-1)?.entity_id]);
    expect(diff.changed).toEqual([]);
  });

  it('hashes a person as the snapshot stores it (long remarks cut, empty fields dropped)', () => {
    const person = { ...june[0], remarks: 'x'.repeat(REMARKS_MAX_CHARS * 2) };
    const stored = {
      ...person,
      remarks: `${'x'.repeat(REMARKS_MAX_CHARS - 1)}…`,
      reference: '',
      programmes: [],
    };
    person.programmes = [];
    expect(personHash(stored)).toBe(personHash(person));
  });
});
