import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { buildApp } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnchorStore,
  type AuditAnchor,
  createFileAnchorStore,
  createS3AnchorStore,
} from '../../lib/audit/anchor-store.ts';
import { s3ClientOf } from '../../lib/common/s3-client.ts';

/** The anchors of the audit chain's heads: the S3 store (on fauxqs's S3) and the local append-only files. */

let app: ReturnType<typeof buildApp>;
let endpoint: string;
const dir = mkdtempSync(join(tmpdir(), 'anchor-store-'));

beforeAll(async () => {
  app = buildApp({ logger: false, defaultRegion: 'us-east-1' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const s3 = s3ClientOf({ endpoint, region: 'us-east-1' });
  await s3.send(new CreateBucketCommand({ Bucket: 'anchors' }));
  s3.destroy();
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const anchor = (tenant: string, seq: number): AuditAnchor => ({
  tenant_id: tenant,
  seq,
  hash: seq.toString(16).padStart(64, '0'),
  anchored_at: new Date(Date.UTC(2026, 10, 28, 12, 0, seq)).toISOString(),
});

const stores: [string, () => AnchorStore][] = [
  ['S3 (fauxqs)', () => createS3AnchorStore({ bucket: 'anchors', endpoint, region: 'us-east-1' })],
  ['local files', () => createFileAnchorStore(join(dir, 'anchors'))],
];

describe.each(stores)('anchor store: %s', (_, make) => {
  it('gives the newest head of each tenant, and none for a tenant never anchored', async () => {
    const store = make();
    for (const seq of [3, 9, 10, 11]) await store.publish(anchor('tanchora', seq), 30);
    await store.publish(anchor('tanchorb', 2), 30);

    expect(await store.latest('tanchora')).toEqual(anchor('tanchora', 11));
    expect(await store.latest('tanchorb')).toEqual(anchor('tanchorb', 2));
    expect(await store.latest('tanchornone')).toBeUndefined();
  });

  it('refuses a tenant id that is not one, rather than using it in a path or key', async () => {
    const store = make();
    await expect(store.publish(anchor('../escape', 1), 30)).rejects.toThrow(/not a tenant id/);
    await expect(store.latest('a/b')).rejects.toThrow(/not a tenant id/);
  });
});

describe('the local anchor file', () => {
  it('is appended to, a line per anchor, never rewritten', async () => {
    const store = createFileAnchorStore(join(dir, 'lines'));
    for (const seq of [1, 2, 3]) await store.publish(anchor('tlines', seq), 30);
    const lines = readFileSync(join(dir, 'lines', 'tlines.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3]);
  });
});
