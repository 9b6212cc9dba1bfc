/**
 * The lists the product ships: where each one's files live under data/ and which parser reads them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AU_DFAT_FILE, AU_DFAT_LIST, parseAuDfat } from './au-dfat.ts';
import { CA_SEMA_FILE, CA_SEMA_LIST, parseCaSema } from './ca-sema.ts';
import { EU_FSF_DERIVED_FILE, EU_FSF_LIST, parseEuFsfDerived, parseEuFsfXml } from './eu-fsf.ts';
import { FBI_WANTED_FILES, FBI_WANTED_LIST, parseFbiWanted } from './fbi-wanted.ts';
import {
  INTERPOL_RED_NOTICES_DIR,
  INTERPOL_RED_NOTICES_LIST,
  parseInterpolRedNotices,
} from './interpol-red-notices.ts';
import { NZ_RUSSIA_DERIVED_FILE, NZ_RUSSIA_LIST, parseNzRussiaDerived } from './nz-mfat.ts';
import { OFAC_CONS_FILE, OFAC_CONS_LIST, parseOfacEnhanced } from './ofac-enhanced.ts';
import { OFAC_SDN_FILES, OFAC_SDN_LIST, parseOfacSdn } from './ofac-sdn.ts';
import type { ListDescriptor, ParsedList } from './types.ts';
import { parseUkFcdoDerived, parseUkFcdoXml, UK_FCDO_DERIVED_FILE, UK_FCDO_LIST } from './uk-fcdo.ts';
import { parseUkOfsi, UK_OFSI_FILE, UK_OFSI_LIST } from './uk-ofsi.ts';
import { parseUnConsolidated, UN_CONSOLIDATED_FILE, UN_CONSOLIDATED_LIST } from './un-consolidated.ts';
import {
  parseUsCongressPep,
  parseUsExecutivePep,
  US_CONGRESS_FILES,
  US_CONGRESS_PEP_LIST,
  US_EXECUTIVE_FILE,
  US_EXECUTIVE_PEP_LIST,
} from './us-congress-pep.ts';
import { parseWikidataPep, WIKIDATA_PEP_FILES, WIKIDATA_PEP_LIST } from './wikidata-pep.ts';
import { parseWorldLeaders, WORLD_LEADERS_FILE, WORLD_LEADERS_LIST } from './world-leaders.ts';

export interface ListSource {
  descriptor: ListDescriptor;
  /** Reads and parses the list's bundled files from a data directory laid out like the repository's data/. */
  read(dataDir: string): ParsedList;
  /**
   * The publisher's official single-file format (what a sync downloads), as a pure function of
   * the file's bytes. Where the bundled copy is a transcription (EU, UK FCDO), `read` loads the
   * transcription and `parse` reads the official file; where the bundled copy is the official
   * file, both read the same format. Absent for lists published as several files (OFAC legacy
   * CSV, congress-legislators, FBI, INTERPOL) or only available as a transcription (NZ).
   */
  parse?: (bytes: Uint8Array | string) => ParsedList;
  /** The official format `parse` reads, for humans and for the sync configuration. */
  format?: string;
}

const file = (dir: string, path: string) => readFileSync(join(dir, path));

export const LIST_SOURCES: readonly ListSource[] = [
  {
    descriptor: OFAC_SDN_LIST,
    read: (dir) =>
      parseOfacSdn({
        sdn: readFileSync(join(dir, OFAC_SDN_FILES.sdn)),
        alt: readFileSync(join(dir, OFAC_SDN_FILES.alt)),
        add: readFileSync(join(dir, OFAC_SDN_FILES.add)),
        comments: readFileSync(join(dir, OFAC_SDN_FILES.comments)),
        newerSdn: readFileSync(join(dir, OFAC_SDN_FILES.newerSdn)),
      }),
  },
  {
    descriptor: OFAC_CONS_LIST,
    read: (dir) => parseOfacEnhanced(file(dir, OFAC_CONS_FILE)),
    // The same schema as SDN_ENHANCED.XML; the file's own filter tells which list it is.
    parse: (bytes) => parseOfacEnhanced(bytes),
    format: 'OFAC Enhanced XML (CONS_ENHANCED.XML; SDN_ENHANCED.XML reads as ofac_sdn)',
  },
  {
    descriptor: UN_CONSOLIDATED_LIST,
    read: (dir) => parseUnConsolidated(file(dir, UN_CONSOLIDATED_FILE)),
    parse: (bytes) => parseUnConsolidated(typeof bytes === 'string' ? bytes : Buffer.from(bytes)),
    format: 'UN Security Council consolidated list XML',
  },
  {
    descriptor: EU_FSF_LIST,
    read: (dir) => parseEuFsfDerived(file(dir, EU_FSF_DERIVED_FILE)),
    parse: parseEuFsfXml,
    format: 'EU Financial Sanctions Files XML 1.1 (xmlFullSanctionsList_1_1)',
  },
  {
    descriptor: UK_FCDO_LIST,
    read: (dir) => parseUkFcdoDerived(file(dir, UK_FCDO_DERIVED_FILE)),
    parse: parseUkFcdoXml,
    format: 'FCDO UK Sanctions List XML (UK-Sanctions-List.xml)',
  },
  {
    descriptor: UK_OFSI_LIST,
    read: (dir) => parseUkOfsi(file(dir, UK_OFSI_FILE)),
  },
  {
    descriptor: CA_SEMA_LIST,
    read: (dir) => parseCaSema(file(dir, CA_SEMA_FILE)),
    parse: parseCaSema,
    format: 'Canada consolidated autonomous sanctions list XML (sema-lmes.xml)',
  },
  {
    descriptor: AU_DFAT_LIST,
    read: (dir) => parseAuDfat(file(dir, AU_DFAT_FILE)),
    parse: (bytes) => parseAuDfat(typeof bytes === 'string' ? Buffer.from(bytes, 'binary') : bytes),
    format: 'DFAT Consolidated List workbook (Australian_Sanctions_Consolidated_List.xlsx)',
  },
  {
    descriptor: NZ_RUSSIA_LIST,
    read: (dir) => parseNzRussiaDerived(file(dir, NZ_RUSSIA_DERIVED_FILE)),
  },
  {
    descriptor: US_CONGRESS_PEP_LIST,
    read: (dir) =>
      parseUsCongressPep({
        current: readFileSync(join(dir, US_CONGRESS_FILES.current)),
        historical: readFileSync(join(dir, US_CONGRESS_FILES.historical)),
      }),
  },
  {
    descriptor: US_EXECUTIVE_PEP_LIST,
    read: (dir) => parseUsExecutivePep(readFileSync(join(dir, US_EXECUTIVE_FILE))),
  },
  {
    descriptor: WORLD_LEADERS_LIST,
    read: (dir) => parseWorldLeaders(file(dir, WORLD_LEADERS_FILE)),
  },
  {
    descriptor: WIKIDATA_PEP_LIST,
    read: (dir) =>
      parseWikidataPep({
        bio: file(dir, WIKIDATA_PEP_FILES.bio),
        legislators: file(dir, WIKIDATA_PEP_FILES.legislators),
        leaders: file(dir, WIKIDATA_PEP_FILES.leaders),
      }),
  },
  {
    descriptor: FBI_WANTED_LIST,
    read: (dir) =>
      parseFbiWanted({
        csv: readFileSync(join(dir, FBI_WANTED_FILES.csv)),
        apiPage: readFileSync(join(dir, FBI_WANTED_FILES.apiPage)),
      }),
  },
  {
    descriptor: INTERPOL_RED_NOTICES_LIST,
    read: (dir) => parseInterpolRedNotices(readInterpolFiles(dir)),
  },
];

/** The per-nationality files in name order, so the merged notices come out in a stable order. */
export function readInterpolFiles(dataDir: string): Buffer[] {
  const dir = join(dataDir, INTERPOL_RED_NOTICES_DIR);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => readFileSync(join(dir, name)));
}
