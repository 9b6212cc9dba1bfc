import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListDescriptor } from './types.ts';

/**
 * A list's content hash: SHA-256 of its files, names included, in name order. A list sync hashes
 * what it downloaded (lib/sync/feeds.ts); the snapshot build hashes the list's files under data/
 * (issue 35, item 6: every list in every snapshot names the content it was built from, so a
 * screen's receipt can prove which data it was screened against).
 *
 * The recipe, for an examiner: for each file in name order, the bytes of `<name>\0<length>\0`,
 * then the file's bytes; the hex SHA-256 of all of it.
 */
export function contentHash(files: ReadonlyMap<string, Buffer>): string {
  const hash = createHash('sha256');
  for (const name of [...files.keys()].sort()) {
    hash.update(`${name}\0${files.get(name)?.length ?? 0}\0`);
    hash.update(files.get(name) ?? Buffer.alloc(0));
  }
  return hash.digest('hex');
}

/**
 * The files of a bundled list under `dataDir`, by their path relative to it (`dir/*.json` names
 * every JSON file of a directory, as the INTERPOL capture is laid out).
 */
export function bundledListFiles(
  dataDir: string,
  descriptor: Pick<ListDescriptor, 'files'>,
): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const path of descriptor.files) {
    if (path.endsWith('/*.json')) {
      const dir = path.slice(0, -'/*.json'.length);
      for (const name of readdirSync(join(dataDir, dir)).filter((n) => n.endsWith('.json')))
        files.set(`${dir}/${name}`, readFileSync(join(dataDir, dir, name)));
    } else files.set(path, readFileSync(join(dataDir, path)));
  }
  return files;
}
