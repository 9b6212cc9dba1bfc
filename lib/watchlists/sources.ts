/**
 * The lists the product ships: where each one's files live under data/ and which parser reads them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FBI_WANTED_FILES, FBI_WANTED_LIST, parseFbiWanted } from './fbi-wanted.ts';
import {
  INTERPOL_RED_NOTICES_DIR,
  INTERPOL_RED_NOTICES_LIST,
  parseInterpolRedNotices,
} from './interpol-red-notices.ts';
import { OFAC_SDN_FILES, OFAC_SDN_LIST, parseOfacSdn } from './ofac-sdn.ts';
import type { ListDescriptor, ParsedList } from './types.ts';
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

export interface ListSource {
  descriptor: ListDescriptor;
  /** Reads and parses the list's files from a data directory laid out like the repository's data/. */
  read(dataDir: string): ParsedList;
}

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
    descriptor: UN_CONSOLIDATED_LIST,
    read: (dir) => parseUnConsolidated(readFileSync(join(dir, UN_CONSOLIDATED_FILE))),
  },
  {
    descriptor: UK_OFSI_LIST,
    read: (dir) => parseUkOfsi(readFileSync(join(dir, UK_OFSI_FILE))),
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
