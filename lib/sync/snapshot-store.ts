/**
 * Where synced snapshots live: an S3 bucket with versioning on AWS, a directory locally. Both keep
 * earlier versions (S3 object versions; the last few files locally) and both make a new snapshot
 * visible all at once: S3 serves a whole object or the previous one, and the local store swaps a
 * one-line pointer file by rename after the snapshot file is complete.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** A stored snapshot's bytes and the version that names them. */
export interface StoredSnapshot {
  version: string;
  body: Buffer;
}

export interface SnapshotStore {
  /** Where it is, for logs and the CLI. */
  readonly description: string;
  /**
   * The newest version's identifier, or undefined while nothing was ever written. Cheap (an S3
   * HEAD, a one-line file): screening functions call it every minute or so.
   */
  latestVersion(): Promise<string | undefined>;
  /** The newest snapshot, or undefined while nothing was ever written. */
  readLatest(): Promise<StoredSnapshot | undefined>;
  /** Stores a new snapshot and makes it the newest; returns its version. */
  write(body: string | Buffer): Promise<string>;
}

/** The object key of the snapshot in the bucket; S3 versioning keeps its history. */
export const SNAPSHOT_OBJECT_KEY = 'watchlists/watchlists.json';

export interface S3StoreConfig {
  bucket: string;
  /** For an emulator (fauxqs locally); unset on AWS. */
  endpoint?: string;
  region?: string;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export function createS3SnapshotStore(config: S3StoreConfig, client?: S3Client): SnapshotStore {
  const s3 =
    client ??
    new S3Client({
      region: config.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(config.endpoint
        ? {
            endpoint: config.endpoint,
            forcePathStyle: true,
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          }
        : {}),
    });
  const Bucket = config.bucket;
  const Key = SNAPSHOT_OBJECT_KEY;
  // A bucket without versioning (an emulator) still gives an ETag that changes with the content.
  const versionOf = (out: { VersionId?: string; ETag?: string }) =>
    out.VersionId ?? out.ETag ?? 'unversioned';
  return {
    description: `s3://${Bucket}/${Key}`,
    async latestVersion() {
      try {
        return versionOf(await s3.send(new HeadObjectCommand({ Bucket, Key })));
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async readLatest() {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket, Key }));
        const body = Buffer.from((await out.Body?.transformToByteArray()) ?? []);
        return { version: versionOf(out), body };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async write(body) {
      const out = await s3.send(
        new PutObjectCommand({ Bucket, Key, Body: body, ContentType: 'application/json' }),
      );
      return versionOf(out);
    },
  };
}

const POINTER_FILE = 'latest';
/** Local versions kept besides the newest, like S3's noncurrent versions (for a look back). */
const LOCAL_VERSIONS_KEPT = 3;

/**
 * The local store: `<dir>/watchlists-<time>-<random>.json` files and a `latest` file naming the
 * newest. It persists across `npm start` restarts, as the local table does.
 */
export function createFileSnapshotStore(dir: string): SnapshotStore {
  const pointer = join(dir, POINTER_FILE);
  async function latestVersion(): Promise<string | undefined> {
    try {
      return (await readFile(pointer, 'utf8')).trim() || undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
  return {
    description: dir,
    latestVersion,
    async readLatest() {
      const version = await latestVersion();
      if (!version) return undefined;
      return { version, body: await readFile(join(dir, version)) };
    },
    async write(body) {
      await mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[-:.]/g, '');
      const version = `watchlists-${stamp}-${randomBytes(4).toString('hex')}.json`;
      const temporary = join(dir, `.${version}.tmp`);
      await writeFile(temporary, body);
      await rename(temporary, join(dir, version));
      const pointerTemporary = join(dir, `.${POINTER_FILE}.${version}.tmp`);
      await writeFile(pointerTemporary, `${version}\n`);
      await rename(pointerTemporary, pointer);
      const versions = (await readdir(dir)).filter((name) => /^watchlists-.*\.json$/.test(name)).sort();
      const older = versions.filter((name) => name !== version);
      for (const old of older.slice(0, -LOCAL_VERSIONS_KEPT)) await rm(join(dir, old), { force: true });
      return version;
    },
  };
}
