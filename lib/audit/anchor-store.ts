import { appendFile, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import * as v from 'valibot';
import { s3ClientOf } from '../common/s3-client.ts';

/**
 * Where the chain writer publishes each tenant's chain head, outside the table: whoever can
 * rewrite the table (a bug in any function, an operator with table access) cannot rewrite what was
 * published here, so `verify-audit` can tell a trail whose newest entries were deleted, or whose
 * hashes were all recomputed after an edit, from an intact one.
 *
 * - On AWS: an S3 bucket with Object Lock in compliance mode. Each anchor is its own object, put
 *   with a compliance-mode retention date (the tenant's retention, at least the stack's floor);
 *   until then no one, the account's root included, can delete or overwrite it. Keys count down
 *   (`anchors/<tenant>/<10^12 - 1 - seq>.json`), so the newest anchor is the first one listed.
 * - Locally: one file per tenant under the data directory, `<tenant>.jsonl`, opened for appending
 *   only, a line per anchor; the newest is the last line.
 */

/** A tenant's chain head as the chain writer left it. */
export interface AuditAnchor {
  tenant_id: string;
  /** The seq of the newest chained entry. */
  seq: number;
  /** Its hash. */
  hash: string;
  /** When it was published. */
  anchored_at: string;
}

const AnchorSchema = v.object({
  tenant_id: v.string(),
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  anchored_at: v.string(),
});

export interface AnchorStore {
  /** Where the anchors are, for people: a directory or an s3:// prefix. */
  description: string;
  /** Publishes a head; `retainDays` is how long it must be kept (the S3 object's lock). */
  publish(anchor: AuditAnchor, retainDays: number): Promise<void>;
  /** The newest anchor of the tenant, or undefined when none was ever published. */
  latest(tenantId: string): Promise<AuditAnchor | undefined>;
}

/** Tenant ids are `[a-z0-9-]`; anything else is refused rather than used in a path or key. */
function checkedTenant(tenantId: string): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(tenantId))
    throw new Error(`not a tenant id: ${JSON.stringify(tenantId)}`);
  return tenantId;
}

function parseAnchor(text: string, where: string): AuditAnchor {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`the anchor at ${where} is not JSON`);
  }
  const parsed = v.safeParse(AnchorSchema, value);
  if (!parsed.success)
    throw new Error(`the anchor at ${where} is not an anchor: ${parsed.issues[0].message}`);
  return parsed.output;
}

/** How much of a file's end is read to find its last line (an anchor is about 170 bytes). */
const TAIL_BYTES = 4096;

export function createFileAnchorStore(dir: string): AnchorStore {
  const fileOf = (tenantId: string) => join(dir, `${checkedTenant(tenantId)}.jsonl`);
  return {
    description: dir,
    async publish(anchor) {
      await mkdir(dir, { recursive: true });
      // 'a': every write goes to the end, whatever else has the file open.
      await appendFile(fileOf(anchor.tenant_id), `${JSON.stringify(anchor)}\n`, { flag: 'a' });
    },
    async latest(tenantId) {
      const file = fileOf(tenantId);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(file, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        const { size } = await handle.stat();
        const length = Math.min(size, TAIL_BYTES);
        const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
        const lines = buffer.toString('utf8').split('\n').filter(Boolean);
        const last = lines[lines.length - 1];
        return last ? parseAnchor(last, file) : undefined;
      } finally {
        await handle.close();
      }
    },
  };
}

const SEQ_CEILING = 10 ** 12 - 1;
const keyOf = (tenantId: string, seq: number) =>
  `anchors/${checkedTenant(tenantId)}/${String(SEQ_CEILING - seq).padStart(12, '0')}.json`;

export interface S3AnchorStoreConfig {
  bucket: string;
  region?: string;
  /** An S3 emulator (tests). */
  endpoint?: string;
}

export function createS3AnchorStore(config: S3AnchorStoreConfig, client?: S3Client): AnchorStore {
  const s3 = client ?? s3ClientOf(config);
  const Bucket = config.bucket;
  return {
    description: `s3://${Bucket}/anchors/`,
    async publish(anchor, retainDays) {
      await s3.send(
        new PutObjectCommand({
          Bucket,
          Key: keyOf(anchor.tenant_id, anchor.seq),
          Body: JSON.stringify(anchor),
          ContentType: 'application/json',
          // A put to an Object Lock bucket must carry a checksum.
          ChecksumAlgorithm: 'SHA256',
          ObjectLockMode: 'COMPLIANCE',
          ObjectLockRetainUntilDate: new Date(Date.now() + retainDays * 86_400_000),
        }),
      );
    },
    async latest(tenantId) {
      const listed = await s3.send(
        new ListObjectsV2Command({ Bucket, Prefix: `anchors/${checkedTenant(tenantId)}/`, MaxKeys: 1 }),
      );
      const Key = listed.Contents?.[0]?.Key;
      if (!Key) return undefined;
      const object = await s3.send(new GetObjectCommand({ Bucket, Key }));
      return parseAnchor((await object.Body?.transformToString('utf8')) ?? '', `s3://${Bucket}/${Key}`);
    },
  };
}

/** The anchor store the configuration names: the bucket on AWS, a directory locally, else none. */
export function anchorStoreOf(config: {
  AUDIT_ANCHOR_BUCKET?: string;
  AUDIT_ANCHOR_DIR?: string;
  AWS_REGION?: string;
  S3_ENDPOINT?: string;
}): AnchorStore | undefined {
  if (config.AUDIT_ANCHOR_BUCKET)
    return createS3AnchorStore({
      bucket: config.AUDIT_ANCHOR_BUCKET,
      region: config.AWS_REGION,
      endpoint: config.S3_ENDPOINT,
    });
  if (config.AUDIT_ANCHOR_DIR) return createFileAnchorStore(config.AUDIT_ANCHOR_DIR);
  return undefined;
}
