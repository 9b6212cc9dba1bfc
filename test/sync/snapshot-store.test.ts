import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
  });
});

describe('local directory store', () => {
  it('keeps the newest four snapshot files and no temporary file', async () => {
    const store = createFileSnapshotStore(join(dir, 'pruned'));
    for (let i = 0; i < 6; i++) await store.write(`{"snapshot":${i}}`);
    const files = readdirSync(join(dir, 'pruned')).sort();
    expect(files.filter((f) => f.endsWith('.json'))).toHaveLength(4);
    expect(files.filter((f) => f.includes('.tmp'))).toHaveLength(0);
    expect((await store.readLatest())?.body.toString()).toBe('{"snapshot":5}');
  });
});
