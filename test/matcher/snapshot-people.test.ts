import { describe, expect, it } from 'vitest';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { parseSnapshot, serialiseSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { peopleSource } from '../../lib/matcher/snapshot-people.ts';
import { compactPerson } from '../../lib/watchlists/snapshot.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { PEOPLE, snapshot } from './fixtures.ts';

const bytes = (): Buffer => Buffer.from(serialiseSnapshot(snapshot()), 'latin1');
/** What the file held before the people's lines: one JSON object, no line break. */
const singleObject = (): Buffer =>
  Buffer.from(JSON.stringify({ ...snapshot(), people: PEOPLE.map(compactPerson) }), 'utf8');

describe('listed people read from the snapshot file', () => {
  it('parses a person only when asked, and the same person as the whole list does', () => {
    const loaded = parseSnapshot(bytes());
    const source = peopleSource(loaded);
    expect(source.count).toBe(PEOPLE.length);
    const last = source.person(PEOPLE.length - 1);
    expect(source.listId(0)).toBe(PEOPLE[0].list_id);
    expect(loaded.people).toEqual(PEOPLE);
    // The person parsed first is the object the whole list holds.
    expect(loaded.people[PEOPLE.length - 1]).toBe(last);
  });

  it('screens exactly as the snapshot it was written from, and as the earlier layout', () => {
    const subjects = PEOPLE.flatMap((p) => p.names.map((n) => ({ name: n.name })));
    const screenAll = (s: Parameters<typeof createMatcher>[0]) =>
      subjects.map((q) => JSON.stringify(createMatcher(s).screen(q, CHECK_TYPES)));
    const fresh = screenAll(snapshot());
    expect(screenAll(parseSnapshot(bytes()))).toEqual(fresh);
    expect(screenAll(parseSnapshot(singleObject()))).toEqual(fresh);
  });

  it('keeps the snapshot whole when spread or written again', () => {
    const loaded = parseSnapshot(bytes());
    expect({ ...loaded }.people).toEqual(PEOPLE);
    expect(parseSnapshot(Buffer.from(serialiseSnapshot(loaded), 'latin1')).people).toEqual(PEOPLE);
  });
});
