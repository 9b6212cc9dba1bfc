/**
 * The sync configuration: for each list the service keeps current, where its publisher publishes
 * it (the official URLs, one entry per list) and how the downloaded files become a `ParsedList`,
 * with the same parsers that read the bundled copies under data/.
 *
 * Every file also has a `mirror` path: where it sits under a local mirror (a directory, or a base
 * URL served by any static HTTP server), so a sync can run with no internet
 * (`npm run sync -- --from <dir|url>`). Mirror paths follow the repository's data/ layout where
 * the bundled copy is the same format as the official file.
 */
import { AU_DFAT_FILE } from '../watchlists/au-dfat.ts';
import { CA_SEMA_FILE } from '../watchlists/ca-sema.ts';
import { listCountries } from '../watchlists/countries.ts';
import { parseFbiWantedApi } from '../watchlists/fbi-wanted.ts';
import { parseInterpolRedNotices } from '../watchlists/interpol-red-notices.ts';
import { OFAC_CONS_FILE } from '../watchlists/ofac-enhanced.ts';
import { parseOfacSdn } from '../watchlists/ofac-sdn.ts';
import { LIST_SOURCES } from '../watchlists/sources.ts';
import type { ListId, ParsedList } from '../watchlists/types.ts';
import { parseUnConsolidated } from '../watchlists/un-consolidated.ts';
import { parseUsCongressPep, parseUsExecutivePep } from '../watchlists/us-congress-pep.ts';

/** One downloadable file: its official URL and its path under a local mirror. */
export interface FeedFile {
  url: string;
  mirror: string;
}

/** Downloads one file (from its official URL or a mirror); rejects with a `FetchError`. */
export type GetFile = (file: FeedFile) => Promise<Buffer>;

/** What a parse may need besides the bytes. */
export interface FeedContext {
  /** When the files were downloaded (UTC date, YYYY-MM-DD): the reference date of PEP tiers. */
  fetchedOn: string;
}

export interface ListFeed {
  listId: ListId;
  /** The publisher's official address(es), for /dbstatus and the README. */
  officialUrls: readonly string[];
  /** Downloads every file the list needs, name → bytes (names are stable: they feed the content hash). */
  download(get: GetFile): Promise<Map<string, Buffer>>;
  /** Parses the downloaded files; throws on a file it cannot read (a malformed download). */
  parse(files: ReadonlyMap<string, Buffer>, context: FeedContext): ParsedList;
}

/** A list published as a fixed set of files. */
function fileFeed<Name extends string>(
  listId: ListId,
  files: Record<Name, FeedFile>,
  parse: (files: Record<Name, Buffer>, context: FeedContext) => ParsedList,
): ListFeed {
  const names = Object.keys(files) as Name[];
  return {
    listId,
    officialUrls: names.map((name) => files[name].url),
    async download(get) {
      const entries = await Promise.all(names.map(async (name) => [name, await get(files[name])] as const));
      return new Map(entries);
    },
    parse(downloaded, context) {
      const byName = {} as Record<Name, Buffer>;
      for (const name of names) {
        const bytes = downloaded.get(name);
        if (!bytes) throw new Error(`${name} was not downloaded`);
        byName[name] = bytes;
      }
      return parse(byName, context);
    },
  };
}

/**
 * A list published as one file in the format its `ListSource.parse` reads (lib/watchlists/sources.ts),
 * the same parser the bundled copy goes through where that copy is the official file.
 */
function officialFileFeed(listId: ListId, file: FeedFile): ListFeed {
  const parse = LIST_SOURCES.find((source) => source.descriptor.id === listId)?.parse;
  if (!parse) throw new Error(`list ${listId} has no parser for its official file`);
  return fileFeed(listId, { file }, (files) => parse(files.file));
}

/** OFAC's Sanctions List Service: the same four legacy CSV files the bundled 2021 set has. */
const OFAC_SLS = 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports';

const CONGRESS = 'https://unitedstates.github.io/congress-legislators';

/** The FBI wanted API, 50 posters a page (its maximum). */
export const FBI_WANTED_API = 'https://api.fbi.gov/wanted/v1/list';
const FBI_PAGE_SIZE = 50;
/** A guard against an API that never reports its end; the FBI publishes about 1,000 posters. */
const FBI_MAX_PAGES = 100;

/**
 * INTERPOL's public notices web service answers at most 160 notices per query, so the list is
 * read one nationality at a time, as the bundled 2020 scrape was (notices held by several
 * nationalities are merged by the parser).
 */
export const INTERPOL_RED_API = 'https://ws-public.interpol.int/notices/v1/red';
const INTERPOL_PER_QUERY = 160;
const INTERPOL_CONCURRENCY = 8;

function fbiPage(page: number): FeedFile {
  return {
    url: `${FBI_WANTED_API}?pageSize=${FBI_PAGE_SIZE}&page=${page}`,
    mirror: `criminal/fbi_wanted/api/page-${page}.json`,
  };
}

function interpolQuery(countryCode: string): FeedFile {
  return {
    url: `${INTERPOL_RED_API}?nationality=${countryCode}&resultPerPage=${INTERPOL_PER_QUERY}`,
    mirror: `criminal/interpol_red_notices/jsons/${countryCode}.json`,
  };
}

/** Runs `task` over `items`, at most `limit` at a time, keeping the items' order in the result. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export const LIST_FEEDS: readonly ListFeed[] = [
  fileFeed(
    'ofac_sdn',
    {
      sdn: { url: `${OFAC_SLS}/SDN.CSV`, mirror: 'sanctions/ofac_sdn/sdn.csv' },
      alt: { url: `${OFAC_SLS}/ALT.CSV`, mirror: 'sanctions/ofac_sdn/alt.csv' },
      add: { url: `${OFAC_SLS}/ADD.CSV`, mirror: 'sanctions/ofac_sdn/add.csv' },
      comments: { url: `${OFAC_SLS}/SDN_COMMENTS.CSV`, mirror: 'sanctions/ofac_sdn/sdn_comments.csv' },
    },
    (files) => parseOfacSdn(files),
  ),
  fileFeed(
    'un_sc',
    {
      xml: {
        url: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
        mirror: 'sanctions/un/UN_consolidated.xml',
      },
    },
    (files) => parseUnConsolidated(files.xml),
  ),
  officialFileFeed('ofac_cons', { url: `${OFAC_SLS}/CONS_ENHANCED.XML`, mirror: OFAC_CONS_FILE }),
  officialFileFeed('eu_fsf', {
    // The public token the EU's Financial Sanctions Files page itself links with.
    url: 'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw',
    mirror: 'sanctions/eu_fsf/xmlFullSanctionsList_1_1.xml',
  }),
  officialFileFeed('uk_fcdo', {
    url: 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml',
    mirror: 'sanctions/uk_fcdo/UK-Sanctions-List.xml',
  }),
  officialFileFeed('ca_sema', {
    url: 'https://www.international.gc.ca/world-monde/assets/office_docs/international_relations-relations_internationales/sanctions/sema-lmes.xml',
    mirror: CA_SEMA_FILE,
  }),
  officialFileFeed('au_dfat', {
    url: 'https://www.dfat.gov.au/sites/default/files/Australian_Sanctions_Consolidated_List.xlsx',
    mirror: AU_DFAT_FILE,
  }),
  fileFeed(
    'us_congress_pep',
    {
      current: {
        url: `${CONGRESS}/legislators-current.yaml`,
        mirror: 'pep/us_congress_legislators/legislators-current.yaml',
      },
      historical: {
        url: `${CONGRESS}/legislators-historical.csv`,
        mirror: 'pep/us_congress_legislators/legislators-historical.csv',
      },
    },
    // Tiers are judged on the day the data was fetched: a member who left office last year is
    // tier 2 today whatever the bundled data's date says.
    (files, context) => parseUsCongressPep(files, { referenceDate: context.fetchedOn }),
  ),
  fileFeed(
    'us_executive_pep',
    {
      executive: { url: `${CONGRESS}/executive.yaml`, mirror: 'pep/us_congress_legislators/executive.yaml' },
    },
    (files, context) => parseUsExecutivePep(files.executive, { referenceDate: context.fetchedOn }),
  ),
  {
    listId: 'fbi_wanted',
    officialUrls: [FBI_WANTED_API],
    async download(get) {
      const pages = new Map<string, Buffer>();
      for (let page = 1; page <= FBI_MAX_PAGES; page++) {
        const bytes = await get(fbiPage(page));
        pages.set(`page-${page}`, bytes);
        const body = JSON.parse(bytes.toString('utf8')) as { total?: number; items?: unknown[] };
        if (!Array.isArray(body.items)) throw new Error(`FBI API page ${page} has no items array`);
        if (body.items.length === 0 || page * FBI_PAGE_SIZE >= (body.total ?? 0)) return pages;
      }
      throw new Error(`FBI API still had posters after ${FBI_MAX_PAGES} pages`);
    },
    parse: (files) => parseFbiWantedApi([...files.values()]),
  },
  {
    listId: 'interpol_red',
    officialUrls: [INTERPOL_RED_API],
    async download(get) {
      const codes = listCountries().map((country) => country.code);
      const bodies = await mapLimited(codes, INTERPOL_CONCURRENCY, (code) => get(interpolQuery(code)));
      return new Map(codes.map((code, i) => [code, bodies[i]]));
    },
    parse: (files) => parseInterpolRedNotices([...files.values()]),
  },
];

/** The feed of a list, if the service syncs it. */
export function feedFor(listId: ListId): ListFeed | undefined {
  return LIST_FEEDS.find((feed) => feed.listId === listId);
}

/**
 * SHA-256 of what was downloaded, names included, in name order (lib/watchlists/content-hash.ts):
 * equal hashes mean the publisher published nothing new, and the parse is skipped.
 */
export { contentHash } from '../watchlists/content-hash.ts';
