import { S3Client } from '@aws-sdk/client-s3';
import { defaultRegion } from './config.ts';

/**
 * An S3 client for a bucket of the stack (the watchlist snapshots, the audit anchors): the
 * function's region on AWS; with `endpoint`, an S3 emulator (tests) reached path-style with
 * throwaway credentials.
 */
export function s3ClientOf(config: { region?: string; endpoint?: string }): S3Client {
  return new S3Client({
    region: config.region ?? defaultRegion(),
    ...(config.endpoint
      ? {
          endpoint: config.endpoint,
          forcePathStyle: true,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
}
