/**
 * `npm run sync -- --from bundled`: a sync whose "download" of each list is the copy bundled under
 * data/, read with the same reader that built the shipped snapshot (lib/watchlists/sources.ts). It
 * needs no network and no mirror, and it works for every synced list, although several bundled
 * copies are not in the publisher's current format (EU and UK FCDO are transcriptions, OFAC SDN
 * adds a newer SDN file, FBI and INTERPOL are older captures): the run exercises everything after
 * the download (sanity checks, snapshot store, status rows, swap, rescreens) on real data.
 */
import { LIST_SOURCES } from '../watchlists/sources.ts';
import type { ParsedList } from '../watchlists/types.ts';
import { LIST_FEEDS, type ListFeed } from './feeds.ts';

/** The word `--from` takes for the bundled data. */
export const BUNDLED_ORIGIN = 'bundled';

const PARSED = 'bundled-parsed-list.json';

/** Every synced list's feed, read from `dataDir` (a directory laid out like the repository's data/). */
export function bundledFeeds(dataDir: string, feeds: readonly ListFeed[] = LIST_FEEDS): ListFeed[] {
  return feeds.map((feed) => {
    const source = LIST_SOURCES.find((s) => s.descriptor.id === feed.listId);
    if (!source) throw new Error(`list ${feed.listId} has a feed but no bundled copy`);
    return {
      listId: feed.listId,
      officialUrls: feed.officialUrls,
      // The parsed list is what is "downloaded": its bytes are hashed like a file's, so a second
      // run over the same data/ reports the list unchanged.
      async download() {
        return new Map([[PARSED, Buffer.from(JSON.stringify(source.read(dataDir)))]]);
      },
      parse(files) {
        const bytes = files.get(PARSED);
        if (!bytes) throw new Error(`${PARSED} was not read`);
        const parsed = JSON.parse(bytes.toString('utf8')) as ParsedList;
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
