/**
 * `npm run sync -- --from bundled`: a sync whose "download" of each list is the copy bundled under
 * data/, read with the same reader that built the shipped snapshot (lib/watchlists/sources.ts). It
 * needs no network and no mirror, and it works for every synced list, although several bundled
 * copies are not in the publisher's current format (EU and UK FCDO are transcriptions, OFAC SDN
 * adds a newer SDN file, FBI and INTERPOL are older captures): the run exercises everything after
 * the download (sanity checks, snapshot store, status rows, swap, rescreens) on real data.
 */
import { bundledListFiles } from '../watchlists/content-hash.ts';
import { LIST_SOURCES } from '../watchlists/sources.ts';
import type { ParsedList } from '../watchlists/types.ts';
import { LIST_FEEDS, type ListFeed } from './feeds.ts';

/** The word `--from` takes for the bundled data. */
export const BUNDLED_ORIGIN = 'bundled';

/**
 * Where a bundled list's files are named in its "download": a prefix of their own, so that their
 * hash differs from the shipped snapshot's (which hashes the same files by their bare paths) and
 * the first sync on a fresh store parses and publishes every list, while a second run over the same
 * data/ hashes them alike and reports them unchanged without parsing anything.
 */
const BUNDLED_PREFIX = 'bundled/';

/** Every synced list's feed, read from `dataDir` (a directory laid out like the repository's data/). */
export function bundledFeeds(dataDir: string, feeds: readonly ListFeed[] = LIST_FEEDS): ListFeed[] {
  return feeds.map((feed) => {
    const source = LIST_SOURCES.find((s) => s.descriptor.id === feed.listId);
    if (!source) throw new Error(`list ${feed.listId} has a feed but no bundled copy`);
    return {
      listId: feed.listId,
      officialUrls: feed.officialUrls,
      // The bundled files are what is "downloaded": their bytes are hashed as a download's are.
      async download() {
        const files = new Map<string, Buffer>();
        for (const [path, bytes] of bundledListFiles(dataDir, source.descriptor))
          files.set(`${BUNDLED_PREFIX}${path}`, bytes);
        return files;
      },
      // Read with the reader that built the shipped snapshot, from the directory just hashed.
      parse(): ParsedList {
        const parsed = source.read(dataDir);
        // The bundled copy's date is in the repository's attribution metadata (the descriptor, from
        // the list's SOURCE.md) where its files state none; never the day of this run.
        return parsed.sourceDate
          ? parsed
          : {
              ...parsed,
              sourceDate: source.descriptor.source_date,
              sourceDateBasis: `Bundled copy: ${source.descriptor.source_date_basis}`,
            };
      },
    };
  });
}
