import { DAY_MS } from '../common/time.ts';
/**
 * Where synced snapshots live: an S3 bucket with versioning on AWS, a directory locally. Both make
 * a new snapshot visible all at once (S3 serves a whole object or the previous one; the local store
 * swaps a one-line pointer file by rename after the snapshot file is complete), and both keep every
 * earlier version for the retention period (below), so any screen younger than that can be
 * replayed on the lists it was matched against (a screen's receipt names the version).
 *
 * Retention (lib/sync/snapshot-retention.ts): a version is kept for SNAPSHOT_RETENTION_DAYS after a
 * newer one replaced it (S3: a lifecycle rule expiring noncurrent versions after that many days;
 * locally: each write deletes the files replaced longer ago than that). The newest is always kept.
 */

import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { type Config, DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../common/config.ts';
import { s3ClientOf } from '../common/s3-client.ts';

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
  /**
   * The snapshot stored under `version` (the newest or an earlier one), or undefined when the store
   * does not hold it: never written here, or deleted by the retention rule.
   */
  read(version: string): Promise<StoredSnapshot | undefined>;
  /** Whether the store still holds `version` (cheap: an S3 HEAD, a file's metadata). */
  has(version: string): Promise<boolean>;
  /** Stores a new snapshot and makes it the newest; returns its version. */
  write(body: string | Buffer): Promise<string>;
  /**
   * Lists refused by the sync's sanity checks, held beside the snapshots for an operator's review
   * (lib/sync/review.ts): one file per list, replaced by the next refusal, removed once a file of
   * the list is published or the operator rejects it. Absent on a store that cannot hold (tests).
   */
  readonly held?: HeldFiles;
}

/** One held candidate per list, by list id. */
export interface HeldFiles {
  put(listId: string, body: string | Buffer): Promise<void>;
  get(listId: string): Promise<Buffer | undefined>;
  remove(listId: string): Promise<void>;
}

/** List ids are lower-case words: nothing else names a held file (no path, no key outside). */
function heldName(listId: string): string {
  if (!/^[a-z0-9_]{1,64}$/.test(listId)) throw new Error(`not a list id: ${listId}`);
  return `${listId}.json`;
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
  return (
    e?.name === 'NotFound' ||
    e?.name === 'NoSuchKey' ||
    e?.name === 'NoSuchVersion' ||
    e?.$metadata?.httpStatusCode === 404
  );
}

export function createS3SnapshotStore(config: S3StoreConfig, client?: S3Client): SnapshotStore {
  const s3 = client ?? s3ClientOf(config);
  const Bucket = config.bucket;
  const Key = SNAPSHOT_OBJECT_KEY;
  // A bucket without versioning (an emulator) still gives an ETag that changes with the content.
  const versionOf = (out: { VersionId?: string; ETag?: string }) =>
    out.VersionId ?? out.ETag ?? 'unversioned';
  const get = async (VersionId?: string): Promise<StoredSnapshot | undefined> => {
    try {
      const out = await s3.send(new GetObjectCommand({ Bucket, Key, VersionId }));
      const body = Buffer.from((await out.Body?.transformToByteArray()) ?? []);
      return { version: versionOf(out), body };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
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
    readLatest: () => get(),
    async has(version) {
      try {
        const unversioned = version.startsWith('"') || version === 'unversioned';
        const out = await s3.send(
          new HeadObjectCommand({ Bucket, Key, ...(unversioned ? {} : { VersionId: version }) }),
        );
        return versionOf(out) === version;
      } catch (error) {
        if (isNotFound(error) || (error as { name?: string }).name === 'InvalidArgument') return false;
        throw error;
      }
    },
    async read(version) {
      // An S3 version id is opaque; an unversioned bucket (an emulator) names its object by ETag,
      // and keeps only the current one.
      if (version.startsWith('"') || version === 'unversioned') {
        const latest = await get();
        return latest?.version === version ? latest : undefined;
      }
      try {
        // A store that ignores VersionId (an emulator) answers with another version: not this one.
        const stored = await get(version);
        return stored?.version === version ? stored : undefined;
      } catch (error) {
        // A version id S3 cannot parse was never one of this bucket's.
        if ((error as { name?: string }).name === 'InvalidArgument') return undefined;
        throw error;
      }
    },
    async write(body) {
      const out = await s3.send(
        new PutObjectCommand({ Bucket, Key, Body: body, ContentType: 'application/json' }),
      );
      return versionOf(out);
    },
    held: {
      async put(listId, body) {
        await s3.send(new PutObjectCommand({ Bucket, Key: `${HELD_PREFIX}${heldName(listId)}`, Body: body }));
      },
      async get(listId) {
        try {
          const out = await s3.send(
            new GetObjectCommand({ Bucket, Key: `${HELD_PREFIX}${heldName(listId)}` }),
          );
          return Buffer.from((await out.Body?.transformToByteArray()) ?? []);
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
      },
      async remove(listId) {
        await s3.send(new DeleteObjectCommand({ Bucket, Key: `${HELD_PREFIX}${heldName(listId)}` }));
      },
    },
  };
}

/** Held candidates in the bucket: beside the snapshot object, outside its key. */
export const HELD_PREFIX = 'watchlists/held/';

const POINTER_FILE = 'latest';
/** A local version: the file's name, `watchlists-<UTC time to the millisecond>-<8 hex>.json`. */
const LOCAL_VERSION = /^watchlists-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-[0-9a-f]{8}\.json$/;

/** When the local version was written, or undefined for a name that is not a local version. */
function writtenAt(version: string): number | undefined {
  const m = LOCAL_VERSION.exec(version);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m;
  return Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
}

export interface FileSnapshotStoreOptions {
  /** Days a version is kept after a newer one replaced it (default DEFAULT_SNAPSHOT_RETENTION_DAYS). */
  retentionDays?: number;
  /** The clock (tests); default now. */
  now?: () => Date;
}

/**
 * The local store: `<dir>/watchlists-<time>-<random>.json` files and a `latest` file naming the
 * newest. It persists across `npm start` restarts, as the local table does. Each write deletes the
 * versions a newer one replaced more than `retentionDays` ago (a version was replaced when the
 * next one was written, which its name records).
 */
export function createFileSnapshotStore(dir: string, options: FileSnapshotStoreOptions = {}): SnapshotStore {
  const retentionMs = (options.retentionDays ?? DEFAULT_SNAPSHOT_RETENTION_DAYS) * DAY_MS;
  const now = options.now ?? (() => new Date());
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
    async read(version) {
      // Only a name this store writes is ever opened: no path outside the directory, no pointer.
      if (writtenAt(version) === undefined) return undefined;
      try {
        return { version, body: await readFile(join(dir, version)) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async has(version) {
      if (writtenAt(version) === undefined) return false;
      try {
        await access(join(dir, version));
        return true;
      } catch {
        return false;
      }
    },
    async write(body) {
      await mkdir(dir, { recursive: true });
      const at = now();
      const stamp = at.toISOString().replace(/[-:.]/g, '');
      const version = `watchlists-${stamp}-${randomBytes(4).toString('hex')}.json`;
      const temporary = join(dir, `.${version}.tmp`);
      await writeFile(temporary, body);
      await rename(temporary, join(dir, version));
      const pointerTemporary = join(dir, `.${POINTER_FILE}.${version}.tmp`);
      await writeFile(pointerTemporary, `${version}\n`);
      await rename(pointerTemporary, pointer);
      // Names sort by the time they were written: each version was replaced by the next one.
      const versions = (await readdir(dir)).filter((name) => writtenAt(name) !== undefined).sort();
      for (let i = 0; i < versions.length - 1; i++) {
        if (versions[i] === version) continue;
        const replacedAt = writtenAt(versions[i + 1]) as number;
        if (at.getTime() - replacedAt >= retentionMs) await rm(join(dir, versions[i]), { force: true });
      }
      return version;
    },
    held: {
      async put(listId, body) {
        const path = join(dir, 'held', heldName(listId));
        await mkdir(join(dir, 'held'), { recursive: true });
        await writeFile(`${path}.tmp`, body);
        await rename(`${path}.tmp`, path);
      },
      async get(listId) {
        try {
          return await readFile(join(dir, 'held', heldName(listId)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        }
      },
      remove: (listId) => rm(join(dir, 'held', heldName(listId)), { force: true }),
    },
  };
}

/** Where the list sync publishes snapshots (S3 on AWS, a directory locally); undefined = bundled only. */
export function snapshotStoreOf(config: Config): SnapshotStore | undefined {
  if (config.WATCHLIST_BUCKET) {
    return createS3SnapshotStore({
      bucket: config.WATCHLIST_BUCKET,
      endpoint: config.S3_ENDPOINT,
      region: config.AWS_REGION,
    });
  }
  return config.WATCHLIST_STORE_DIR
    ? createFileSnapshotStore(config.WATCHLIST_STORE_DIR, { retentionDays: config.SNAPSHOT_RETENTION_DAYS })
    : undefined;
}
