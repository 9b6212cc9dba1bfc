/**
 * The shapes every watchlist parser produces and the matcher consumes.
 * One `ListedPerson` per listed individual; entities, vessels and aircraft are only counted
 * (they appear in /dbstatus) because this service screens individuals.
 */

export type CheckType = 'sanctions' | 'pep' | 'criminal';

export const CHECK_TYPES: readonly CheckType[] = ['sanctions', 'pep', 'criminal'];

/** Stable identifiers of the lists the product ships. */
export type ListId =
  | 'ofac_sdn'
  | 'un_sc'
  | 'uk_ofsi'
  | 'uk_fcdo'
  | 'eu_fsf'
  | 'ofac_cons'
  | 'ca_sema'
  | 'au_dfat'
  | 'nz_russia'
  | 'us_congress_pep'
  | 'us_executive_pep'
  | 'world_leaders_pep'
  | 'intl_bodies_pep'
  | 'fbi_wanted'
  | 'interpol_red';

/** Every list id, for the inputs that name one (the `list` filter of the screen lists). */
export const LIST_IDS = [
  'ofac_sdn',
  'un_sc',
  'uk_ofsi',
  'uk_fcdo',
  'eu_fsf',
  'ofac_cons',
  'ca_sema',
  'au_dfat',
  'nz_russia',
  'us_congress_pep',
  'us_executive_pep',
  'world_leaders_pep',
  'intl_bodies_pep',
  'fbi_wanted',
  'interpol_red',
] as const satisfies readonly ListId[];
// A list id missing above fails here.
const everyListId: Exclude<ListId, (typeof LIST_IDS)[number]> extends never ? true : never = true;
void everyListId;

/**
 * A date of birth as the list states it. Lists often give only a year, a year range or an
 * approximate date, and the matcher must treat each honestly.
 */
export type ListedDob =
  | { kind: 'date'; date: string; approximate?: true } // YYYY-MM-DD
  | { kind: 'month'; year: number; month: number; approximate?: true }
  | { kind: 'year'; year: number; approximate?: true }
  | { kind: 'range'; from: number; to: number }; // inclusive years
// `approximate` marks dates the list itself qualifies ("circa", UN "APPROXIMATELY").

export interface ListedName {
  name: string;
  /** `strong` = primary name or good-quality alias; `weak` = low-quality alias (UN "Low", OFSI "Low quality"). */
  strength: 'primary' | 'strong' | 'weak';
}

export interface PepDetails {
  /** 1 = currently in office; 2 = left office within the last 5 years; 3 = earlier. */
  tier: number;
  /**
   * Holds the office on the PEP data's own date (`as_of`). The risk rules treat a current office
   * holder as the most exposed; a list's date is in /dbstatus, so an old list's "current" is
   * visibly old.
   */
  current: boolean;
  /** The PEP data's date, against which `tier` and `current` were judged (YYYY-MM-DD). */
  as_of?: string;
  /** Country or body of the office ("Solomon Islands", "United Nations"). */
  country?: string;
  /** snake_case: `legislator`, `head_of_state`, `head_of_government_deputy`, ... */
  category: string;
  /** e.g. "U.S. Senator for Vermont (2007–present)" */
  position: string;
  since?: string;
  until?: string;
}

export interface ListedPerson {
  list_id: ListId;
  /** The entity's id within its list (OFAC ent_num, UN DATAID, OFSI Group ID, bioguide id, ...). */
  entity_id: string;
  primary_name: string;
  /** Every name the person is listed under, the primary name first. */
  names: ListedName[];
  dobs: ListedDob[];
  /** Country names in English as the list states them (e.g. "Afghanistan", "Russia"). */
  nationalities: string[];
  /**
   * Places of residence or birth, as the list states them, one place per entry: a city, region or
   * country ("Tehran", "Iran"), never a whole address.
   */
  locations: string[];
  /** Sanctions programmes / regimes, or charges and poster subjects for criminal lists. */
  programmes: string[];
  gender?: string;
  listed_on?: string;
  /** The list's own public reference for the entry where it has one (UN "QDi.001", UK "RUS0001"). */
  reference?: string;
  /** Link to the public record where the list has one. */
  url?: string;
  pep?: PepDetails;
  remarks?: string;
  /**
   * Identifiers other publishers quote for the same listing (`un:QDI.43`, `ofsi:12703`,
   * `ofac:9639`; lib/watchlists/shared-ids.ts), used to link one person's listings across lists.
   */
  shared_ids?: string[];
  /**
   * Every listing of this person when several lists' listings were linked into one person
   * (lib/watchlists/linking.ts), this list's own first; absent for a person listed once.
   */
  listings?: Listing[];
}

/** One list's entry for a person, as carried by a linked person and reported on a match. */
export interface Listing {
  list_id: ListId;
  entity_id: string;
  primary_name: string;
  programmes: string[];
  reference?: string;
  listed_on?: string;
  url?: string;
  /** Why this listing was linked to the first: `primary` (the first itself), a shared id (`un:QDI.43`), or the name rule. */
  linked_by: string;
}

export interface ListDescriptor {
  id: ListId;
  name: string;
  category: CheckType;
  publisher: string;
  licence: string;
  /** Source files under data/, relative to the data directory. */
  files: string[];
  /** The list's own publication date, YYYY-MM-DD (the data's real date, not when we copied it). */
  source_date: string;
  /** How the source date was established. */
  source_date_basis: string;
  /**
   * A retired list kept only as a dated historical source: its entries are screened only as
   * additions to a linked current listing (see lib/watchlists/linking.ts), never alone.
   */
  historical?: true;
  /** Attribution text the licence requires to be shown with the data (OGL v3 for the UK list). */
  attribution?: string;
  /**
   * Caveats a compliance reader of /dbstatus needs: inclusion rules (which records became
   * screening subjects and why), PEP tier rules, legal-review warnings.
   */
  notes?: string[];
}

/** What every list parser returns. */
export interface ParsedList {
  /** Listed individuals kept for screening. */
  people: ListedPerson[];
  /** Every record in the source (individuals, entities, vessels, aircraft, ...). */
  entityCount: number;
  /** The list's own date when the file states it (YYYY-MM-DD); the descriptor's date otherwise. */
  sourceDate?: string;
  /** How `sourceDate` was established, when not stated in the file (a bundled copy's attribution). */
  sourceDateBasis?: string;
}

export interface ListSummary extends Omit<ListDescriptor, 'source_date'> {
  /**
   * The list's own publication date, YYYY-MM-DD, as the publisher states it (in the file, or for a
   * bundled copy in its attribution metadata); null when unknown: such a list counts as stale.
   * Never the date it was fetched.
   */
  source_date: string | null;
  /** Every record in the source (individuals, entities, vessels, ...). */
  entity_count: number;
  /** Individuals kept for screening (a historical list: only those linked to a current listing). */
  individual_count: number;
  /** Of those, listings screened as part of a person first listed by another list (one match per person). */
  linked_count?: number;
  /** When this snapshot was built from the files (ISO 8601 UTC). */
  synced_at: string;
  /**
   * SHA-256 of the list's files (lib/watchlists/content-hash.ts): those a list sync downloaded (the
   * next sync skips the parse when the publisher's files hash the same), or for bundled data those
   * under data/ it was built from. Absent only in snapshots built before hashes were recorded.
   */
  content_hash?: string;
}

/** One linked person: indexes into a list of people (list order), and why each was linked. */
export interface PersonLink {
  people: number[];
  /** Per member: `primary` for the first, else the shared id or name rule that linked it. */
  linked_by: string[];
}

/**
 * The compiled snapshot: the people to screen, one per person (listings of one person on several
 * lists linked into one, lib/watchlists/linking.ts), ready for the matcher to index.
 */
export interface WatchlistSnapshot {
  format_version: number;
  built_at: string;
  lists: ListSummary[];
  people: ListedPerson[];
  /**
   * The per-list records that are not in `people` as themselves (merged into a linked person, or
   * a historical listing alone), as gzipped JSON in base64: a sync reads them back with
   * `perListPeople` to replace one list and link again; a cold start never parses them.
   */
  listing_records?: string;
}
