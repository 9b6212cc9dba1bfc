import { describe, expect, it } from 'vitest';
import { bundledSnapshotVersion } from '../../lib/matcher/screen.ts';
import { serialiseSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { matcherForSnapshotVersion } from '../../lib/sync/snapshot-matchers.ts';
import type { SnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { snapshotOfLists } from '../support/list-mirror.ts';

const bundled = snapshotOfLists(['un_sc']);
const loadBundled = () => bundled;

/** A store holding exactly the given versions. */
function storeOf(versions: Record<string, Buffer>): SnapshotStore {
  return {
    description: `test-${Object.keys(versions).join(',')}`,
    latestVersion: async () => undefined,
    readLatest: async () => undefined,
    read: async (version) => (versions[version] ? { version, body: versions[version] } : undefined),
    has: async (version) => version in versions,
    write: async () => {
      throw new Error('read-only');
    },
  };
}

describe('matchers over earlier snapshot versions', () => {
  it('replays the bundled snapshot only while the running code ships the same one', async () => {
    const shipped = await matcherForSnapshotVersion(
      { store: undefined, loadBundled },
      bundledSnapshotVersion(bundled),
    );
    expect('matcher' in shipped && shipped.matcher.snapshot.version).toBe(bundledSnapshotVersion(bundled));
    expect(
      await matcherForSnapshotVersion({ store: undefined, loadBundled }, 'bundled-0000000000000000'),
    ).toEqual({
      unavailable: 'not_shipped',
    });
  });

  it('names a stored version as the store does, refuses a format it does not read, and says when one is not kept', async () => {
    const version = 'watchlists-20260101T000000000Z-0a0b0c0d.json';
    const old = 'watchlists-20250101T000000000Z-0a0b0c0d.json';
    const versions: Record<string, Buffer> = {
      [version]: Buffer.from(serialiseSnapshot(bundled)),
      [old]: Buffer.from(JSON.stringify({ ...bundled, format_version: 1 })),
    };
    const store = storeOf(versions);
    const found = await matcherForSnapshotVersion({ store, loadBundled }, version);
    expect('matcher' in found && found.matcher.snapshot.version).toBe(version);
    expect(await matcherForSnapshotVersion({ store, loadBundled }, old)).toEqual({
      unavailable: 'old_format',
    });
    expect(
      await matcherForSnapshotVersion({ store, loadBundled }, 'watchlists-20240101T000000000Z-0a0b0c0d.json'),
    ).toEqual({ unavailable: 'not_kept' });

    // A matcher built while the version was kept is not served once the store lets it go.
    delete versions[version];
    expect(await matcherForSnapshotVersion({ store, loadBundled }, version)).toEqual({
      unavailable: 'not_kept',
    });
  });
});
