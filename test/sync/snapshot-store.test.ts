import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { buildApp } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFileSnapshotStore,
  createS3SnapshotStore,
  type SnapshotStore,
} from '../../lib/sync/snapshot-store.ts';

let app: ReturnType<typeof buildApp>;
let endpoint: string;
const dir = mkdtempSync(join(tmpdir(), 'snapshot-store-'));

beforeAll(async () => {
  // fauxqs also emulates S3 (in memory): the same API calls the deployed sync makes.
  app = buildApp({ logger: false, defaultRegion: 'us-east-1' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const s3 = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await s3.send(new CreateBucketCommand({ Bucket: 'watchlists' }));
  s3.destroy();
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => SnapshotStore][] = [
  ['S3 (fauxqs)', () => createS3SnapshotStore({ bucket: 'watchlists', endpoint })],
  ['local directory', () => createFileSnapshotStore(join(dir, 'store'))],
];

describe.each(stores)('%s snapshot store', (_name, create) => {
  it('is empty until written, then serves the newest snapshot under a new version', async () => {
    const store = create();
    expect(await store.latestVersion()).toBeUndefined();
    expect(await store.readLatest()).toBeUndefined();

    const first = await store.write('{"snapshot":1}');
    expect(await store.latestVersion()).toBe(first);
    const second = await store.write('{"snapshot":2}');
    expect(second).not.toBe(first);
    expect(await store.latestVersion()).toBe(second);
    const latest = await store.readLatest();
    expect(latest?.version).toBe(second);
    expect(latest?.body.toString()).toBe('{"snapshot":2}');
    // The newest is read back by its version too; a version the store never wrote is not there.
    expect((await store.read(second))?.body.toString()).toBe('{"snapshot":2}');
    expect(await store.has(second)).toBe(true);
    expect(await store.read('watchlists-20200101T000000000Z-00000000.json')).toBeUndefined();
    expect(await store.has('watchlists-20200101T000000000Z-00000000.json')).toBe(false);
  });

  it('holds one refused file per list beside the snapshots, outside the snapshot versions', async () => {
    const store = create();
    const latest = await store.latestVersion();
    expect(await store.held?.get('un_sc')).toBeUndefined();
    await store.held?.put('un_sc', '{"held":1}');
    await store.held?.put('un_sc', '{"held":2}');
    expect((await store.held?.get('un_sc'))?.toString()).toBe('{"held":2}');
    expect(await store.latestVersion()).toBe(latest);
    await store.held?.remove('un_sc');
    expect(await store.held?.get('un_sc')).toBeUndefined();
    // Only a list id names a held file: no path out of the store.
    await expect(store.held?.get('../latest')).rejects.toThrow('not a list id');
  });
});

describe('local directory store', () => {
  const DAY = 86_400_000;
  /** A store whose clock the test moves. */
  const clocked = (name: string, retentionDays?: number) => {
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    const store = createFileSnapshotStore(join(dir, name), { retentionDays, now: () => new Date(clock.t) });
    return { store, clock, files: () => readdirSync(join(dir, name)).sort() };
  };

  it('reads back every version it keeps by its version', async () => {
    const { store, clock } = clocked('versions');
    const first = await store.write('{"snapshot":1}');
    clock.t += 1000;
    const second = await store.write('{"snapshot":2}');
    expect((await store.read(first))?.body.toString()).toBe('{"snapshot":1}');
    expect((await store.read(second))?.body.toString()).toBe('{"snapshot":2}');
  });

  it('opens only names it writes: no path outside its directory, not the pointer', async () => {
    const { store } = clocked('traversal');
    await store.write('{"snapshot":1}');
    writeFileSync(join(dir, 'outside.json'), '{"secret":true}');
    for (const version of ['../outside.json', '/etc/passwd', 'latest', 'watchlists-../../outside.json', '']) {
      expect(await store.read(version), version).toBeUndefined();
      expect(await store.has(version), version).toBe(false);
    }
  });

  it('keeps a version for the retention period after a newer one replaced it, then deletes it', async () => {
    const { store, clock, files } = clocked('retention', 30);
    const first = await store.write('{"snapshot":1}');
    clock.t += 10 * DAY;
    const second = await store.write('{"snapshot":2}'); // replaces the first on day 10
    clock.t += 29 * DAY;
    const third = await store.write('{"snapshot":3}'); // day 39: the first was replaced 29 days ago
    expect(await store.read(first)).toBeDefined();
    clock.t += 1 * DAY;
    const fourth = await store.write('{"snapshot":4}'); // day 40: 30 days since the first was replaced
    expect(await store.read(first)).toBeUndefined();
    expect(await store.has(first)).toBe(false);
    // The second was replaced on day 39, one day ago: kept however old it is itself.
    expect((await store.read(second))?.body.toString()).toBe('{"snapshot":2}');
    expect(files().filter((f) => f.endsWith('.json'))).toEqual([second, third, fourth]);
    expect(files().filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('keeps the newest whatever its age, and by default keeps replaced versions five years', async () => {
    const { store, clock } = clocked('default');
    const first = await store.write('{"snapshot":1}');
    clock.t += 1000;
    await store.write('{"snapshot":2}');
    clock.t += 1826 * DAY;
    const third = await store.write('{"snapshot":3}');
    expect(await store.read(first)).toBeDefined();
    clock.t += 1 * DAY;
    await store.write('{"snapshot":4}');
    expect(await store.read(first)).toBeUndefined();

    const zero = clocked('zero', 0);
    const old = await zero.store.write('{"snapshot":1}');
    zero.clock.t += 1000;
    const newest = await zero.store.write('{"snapshot":2}');
    expect(await zero.store.read(old)).toBeUndefined();
    expect((await zero.store.readLatest())?.version).toBe(newest);
    expect(third).not.toBe(newest);
  });
});
