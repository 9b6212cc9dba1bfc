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
}

export interface ListSummary extends ListDescriptor {
  /** Every record in the source (individuals, entities, vessels, ...). */
  entity_count: number;
  /** Individuals kept for screening. */
  individual_count: number;
  /** When this snapshot was built from the files (ISO 8601 UTC). */
  synced_at: string;
  /**
   * SHA-256 of the files a list sync downloaded (lib/sync/feeds.ts `contentHash`); the next sync
   * skips the parse when the publisher's files hash the same. Absent for bundled data.
   */
  content_hash?: string;
}

/** The compiled snapshot: every list's people, ready for the matcher to index. */
export interface WatchlistSnapshot {
  format_version: number;
  built_at: string;
  lists: ListSummary[];
  people: ListedPerson[];
}
