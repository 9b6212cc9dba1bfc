import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { parseSnapshot, readSnapshot, serialiseSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { peopleSource } from '../../lib/matcher/snapshot-people.ts';
import { compactPerson } from '../../lib/watchlists/snapshot.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { PEOPLE, snapshot } from './fixtures.ts';

const bytes = (): Buffer => serialiseSnapshot(snapshot());

/**
 * The line layout before the arrays section: the same file with each typed array as base64 text
 * inside the header line.
 */
function base64Layout(file: Buffer): Buffer {
  const headerEnd = file.indexOf(10);
  const header = JSON.parse(file.toString('latin1', 0, headerEnd));
  const start = headerEnd + 1;
  for (const [path, [offset, length]] of Object.entries(header.arrays as Record<string, [number, number]>)) {
    const keys = path.split('.');
    let owner = header;
    for (const key of keys.slice(0, -1)) owner = owner[key];
    owner[keys[keys.length - 1]] = file.subarray(start + offset, start + offset + length).toString('base64');
  }
  const people = file.subarray(start + header.array_bytes);
  delete header.arrays;
  delete header.array_bytes;
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'latin1'), people]);
}
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
    expect(screenAll(parseSnapshot(base64Layout(bytes())))).toEqual(fresh);
  });

  it('keeps the snapshot whole when spread or written again', () => {
    const loaded = parseSnapshot(bytes());
    expect({ ...loaded }.people).toEqual(PEOPLE);
    expect(parseSnapshot(serialiseSnapshot(loaded)).people).toEqual(PEOPLE);
    // A file of the earlier layout written again takes the current one.
    const again = serialiseSnapshot(parseSnapshot(base64Layout(bytes())));
    expect(again.equals(bytes())).toBe(true);
  });

  it("reads a file's people as they are asked for, from the file it opened", () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapshot-people-'));
    const path = join(dir, 'watchlists.json');
    writeFileSync(path, bytes());
    const loaded = readSnapshot(path, 256);
    // Another snapshot renamed over the path, as writeSnapshot does, after the cold start.
    const other = join(dir, 'other.json');
    writeFileSync(other, serialiseSnapshot({ ...snapshot(), people: PEOPLE.slice(0, 1) }));
    renameSync(other, path);
    const source = peopleSource(loaded);
    expect(source.person(PEOPLE.length - 1)).toEqual(PEOPLE[PEOPLE.length - 1]);
    expect(loaded.people).toEqual(PEOPLE);
    expect(readSnapshot(path).people).toEqual(PEOPLE.slice(0, 1));
  });

  it('keeps the file open while the people are still wanted, after the snapshot object is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapshot-people-'));
    const path = join(dir, 'watchlists.json');
    writeFileSync(path, bytes());
    // The matcher keeps the people's source, not the snapshot object it came with.
    // Read 256 bytes at a time: the header and the arrays only, not the people's lines.
    const source = ((): ReturnType<typeof peopleSource> => peopleSource(readSnapshot(path, 256)))();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let k = 0; k < 5; k++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(source.person(PEOPLE.length - 1)).toEqual(PEOPLE[PEOPLE.length - 1]);
  });
});
